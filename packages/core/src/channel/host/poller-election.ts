import { errorFields, type Logger } from "../../logger/logger.js";
import type { PollerLock } from "../../store/downcity-store.js";
import type { ChannelState } from "../adapter/channel-adapter.js";

/**
 * Starts a polling adapter once this worker holds its channel's poller lock, so exactly one of
 * several workers pulls from the platform; the others stand by (and still send replies). Resolves
 * with the held lock (release it after the adapter stopped), or undefined when it never started.
 */
export async function pollWhenElected(options: {
  channel: string;
  pollerLock(channel: string, options: { signal: AbortSignal }): Promise<PollerLock>;
  signal: AbortSignal;
  logger: Logger;
  start(): Promise<void>;
  stop(): Promise<void>;
  setState(state: ChannelState | "standby", error?: string): void;
}): Promise<PollerLock | undefined> {
  const { channel, logger, signal } = options;
  let lock: PollerLock;
  try {
    lock = await options.pollerLock(channel, { signal });
  } catch (error) {
    if (!signal.aborted) {
      logger.error({ channel, ...errorFields(error) }, "could not wait for the channel's poller lock");
      options.setState("failed", (error as Error)?.message ?? String(error));
    }
    return undefined;
  }
  if (signal.aborted) {
    await lock.release().catch(() => {});
    return undefined;
  }
  logger.info({ channel }, "this worker holds the poller lock and polls the channel now");
  options.setState("connected");
  try {
    await options.start();
  } catch (error) {
    logger.error({ channel, ...errorFields(error) }, "channel failed to start; the others go on");
    options.setState("failed", (error as Error)?.message ?? String(error));
    await lock.release().catch(() => {});
    return undefined;
  }
  void lock.lost.then(async () => {
    if (signal.aborted) return;
    logger.error(
      { channel },
      "lost the poller lock (its database connection dropped); this worker stops polling and another takes over",
    );
    await options.stop().catch(() => {});
    options.setState(
      "failed",
      "lost the poller lock; another worker polls this channel now. Restart this daemon to stand by again.",
    );
  });
  return lock;
}
