import { ConsoleApiError } from "./console-api-error.js";

/** How long a read of the console API may take, body included, before it fails [30 s]. */
export const readTimeoutMs = 30_000;

/**
 * Fetches `url` and reads the response with `read`, failing with a `TIMEOUT` ConsoleApiError when
 * both are not done within `ms` (a server that accepts and never answers, or stalls mid-body).
 */
export async function fetchWithin<Result>(
  url: string,
  init: RequestInit,
  ms: number,
  read: (response: Response) => Promise<Result>,
): Promise<Result> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await read(await fetch(url, { ...init, signal }));
  } catch (error) {
    if (signal.aborted)
      throw new ConsoleApiError(
        0,
        "TIMEOUT",
        `The console server did not answer within ${ms / 1000} s; the page tries again on its next refresh.`,
      );
    throw error;
  }
}
