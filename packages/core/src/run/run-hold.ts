import { frameEntry, runWithFrameEntry } from "../context/async-frame.js";

/** Pauses the current run's clocks; the returned function resumes them. */
type RunHold = () => () => void;

/**
 * A run's hold that lets go of the run once it ends. The hold is stored in the async frame, and on
 * Node 20 every promise (every web stream's among them) keeps the frame it was created in until it
 * is collected, which for a stream can be several garbage collections after the run: a hold that
 * closed over the run kept its prompt, tools and steps alive that long (about a thousand finished
 * runs at once in a busy daemon). This one holds only its target, dropped by `release`.
 */
export function releasableHold(target: { hold(): () => void }): { hold: RunHold; release(): void } {
  let current: { hold(): () => void } | undefined = target;
  return {
    hold: () => current?.hold() ?? (() => {}),
    release: () => {
      current = undefined;
    },
  };
}

/** Runs `fn` (a model stream and the tools it calls) with `hold` reachable by `whileRunWaits`. */
export function withRunHold<T>(hold: RunHold, fn: () => T): T {
  return runWithFrameEntry("hold", hold, fn);
}

/**
 * Waits for `work` (a person's answer: an approval) with the calling run paused: its step and run
 * clocks stop, so a wait longer than `run.stepTimeoutMs` does not abort the run, and they restart
 * when the wait is over (the step clock from zero). No model call is open while a tool waits.
 * Outside a run it simply awaits `work`.
 */
export async function whileRunWaits<T>(work: () => Promise<T>): Promise<T> {
  const release = frameEntry("hold")?.();
  try {
    return await work();
  } finally {
    release?.();
  }
}
