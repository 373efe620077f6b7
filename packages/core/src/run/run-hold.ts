import { frameEntry, runWithFrameEntry } from "../context/async-frame.js";

/** Pauses the current run's clocks; the returned function resumes them. */
type RunHold = () => () => void;

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
