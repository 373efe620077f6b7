/**
 * How much longer than on a quiet developer machine a test may wait: `DOWNCITY_TEST_TIME_SCALE` when set
 * (a number >= 1), else 2 under CI (shared, slower runners), else 1. Deadlines scale; what a test asserts
 * about elapsed time does not.
 */
export function testTimeScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DOWNCITY_TEST_TIME_SCALE;
  if (raw !== undefined && raw !== "") {
    const scale = Number(raw);
    if (!Number.isFinite(scale) || scale < 1)
      throw new Error(`DOWNCITY_TEST_TIME_SCALE must be a number >= 1, got "${raw}"`);
    return scale;
  }
  return env.CI && env.CI !== "false" && env.CI !== "0" ? 2 : 1;
}

/** `ms` stretched by `testTimeScale()`: the deadline for a wait that takes `ms` on a quiet machine. */
export function scaledMs(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.round(ms * testTimeScale(env));
}
