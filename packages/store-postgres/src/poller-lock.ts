import pg from "pg";

/** A held poller lock: `lost` resolves if the connection holding it drops. */
export interface PollerLock {
  readonly lost: Promise<void>;
  release(): Promise<void>;
}

// Advisory locks of this class are poller locks; the key is the channel name's hash.
const pollerClass = 0x706f6c6c;

/**
 * Waits until this worker holds the poller lock of `channel` (a session-level advisory lock on a
 * connection of its own): exactly one worker polls a channel, and when it dies its session ends,
 * the lock frees, and the next worker's attempt takes it within `retryMs`.
 */
export async function acquirePollerLock(
  url: string,
  channel: string,
  options: { retryMs?: number; signal?: AbortSignal } = {},
): Promise<PollerLock> {
  const retryMs = options.retryMs ?? 1000;
  for (;;) {
    options.signal?.throwIfAborted();
    const client = new pg.Client({ connectionString: url, keepAlive: true });
    let dropped = false;
    client.on("error", () => {
      dropped = true;
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>(
        "SELECT pg_try_advisory_lock($1, hashtext($2)) AS held",
        [pollerClass, channel],
      );
      if (rows[0]?.held && !dropped) {
        const lost = new Promise<void>((resolve) => {
          client.on("end", () => resolve());
          client.on("error", () => resolve());
        });
        return {
          lost,
          release: () => client.end(),
        };
      }
    } catch {
      // The database is unreachable for now: try again after the pause.
    }
    await client.end().catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}
