import type { PollerLock } from "@downcity/core";
import pg from "pg";
import { reconnectDelay } from "./reconnect-delay.js";
import type { ConnectionSettings } from "./sql-pool.js";

/** A held poller lock: `lost` resolves if the connection holding it drops (core's `PollerLock`). */
export type { PollerLock };

// Advisory locks of this class are poller locks; the key is the channel name's hash.
const pollerClass = 0x706f6c6c;

/** Waits `ms`, or until `signal` aborts (then throws its reason). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits until this worker holds the poller lock of `channel` (a session-level advisory lock on a
 * connection of its own): exactly one worker polls a channel, and when it dies its session ends,
 * the lock frees, and the next worker's attempt takes it within `retryMs`. Aborting `signal` stops
 * the wait (the promise rejects with its reason) and gives back a lock taken meanwhile. While the
 * server is unreachable the attempts back off (up to 5 s apart).
 */
export async function acquirePollerLock(
  connection: string | ConnectionSettings,
  channel: string,
  options: { retryMs?: number; signal?: AbortSignal } = {},
): Promise<PollerLock> {
  const { signal } = options;
  const retryMs = options.retryMs ?? 1000;
  const config: pg.ClientConfig =
    typeof connection === "string" ? { connectionString: connection, keepAlive: true } : connection;
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    const client = new pg.Client(config);
    let dropped = false;
    client.on("error", () => {
      dropped = true;
    });
    // An abort while connecting or asking ends the attempt's connection at once.
    const onAbort = () => void client.end().catch(() => {});
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>(
        "SELECT pg_try_advisory_lock($1, hashtext($2)) AS held",
        [pollerClass, channel],
      );
      failures = 0;
      if (rows[0]?.held && !dropped && !signal?.aborted) {
        signal?.removeEventListener("abort", onAbort);
        // Lost only when the connection drops under it; giving it back is not losing it.
        let released = false;
        const lost = new Promise<void>((resolve) => {
          client.on("end", () => {
            if (!released) resolve();
          });
          client.on("error", () => {
            if (!released) resolve();
          });
        });
        return {
          lost,
          async release() {
            released = true;
            await client.end();
          },
        };
      }
    } catch {
      // The database is unreachable for now: try again after a pause that grows while it stays so.
      failures++;
    }
    signal?.removeEventListener("abort", onAbort);
    await client.end().catch(() => {});
    await pause(
      failures > 0 ? Math.max(retryMs, reconnectDelay(failures - 1, { baseMs: retryMs })) : retryMs,
      signal,
    );
  }
}
