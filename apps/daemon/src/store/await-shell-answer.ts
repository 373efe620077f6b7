import type { ShellCallStore } from "@downcity/core";

/** How often the caller looks for the answer besides the store's wake-ups. */
const lookEveryMs = 250;

/**
 * Waits for the answer of routed shell call `id`: looks at each wake-up of the store and every
 * 250 ms, until `deadline` (epoch ms) or `signal` aborts. Undefined when no answer came in time.
 */
export async function awaitShellAnswer(
  calls: ShellCallStore,
  id: string,
  options: { deadline: number; signal?: AbortSignal },
): Promise<{ result: unknown } | undefined> {
  let wake: (() => void) | undefined;
  const unsubscribe = calls.onWake(() => wake?.());
  try {
    while (!options.signal?.aborted) {
      const answer = await calls.answerOf(id);
      if (answer) return answer;
      const left = options.deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(lookEveryMs, left));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          options.signal?.removeEventListener("abort", done);
          resolve();
        }
        wake = done;
        options.signal?.addEventListener("abort", done, { once: true });
      });
    }
    return undefined;
  } finally {
    unsubscribe();
  }
}
