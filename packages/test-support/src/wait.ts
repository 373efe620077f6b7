/**
 * Polls `check` every 50 ms until it returns a value other than `undefined` or `false`, and returns that
 * value; throws `timed out waiting for <what>` after `timeoutMs` [20 s].
 */
export async function until<T>(
  check: () => T | undefined | false,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a process with this pid exists (signal 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
