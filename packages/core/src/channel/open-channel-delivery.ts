import { join } from "node:path";
import type { AgentRuntime } from "../agent/agent-runtime.js";
import type { Logger } from "../logger/logger.js";
import { downcityPaths } from "../paths/downcity-paths.js";
import { defaultLeaseMs } from "../store/context-lease.js";
import type { DowncityStore } from "../store/downcity-store.js";
import type { ChannelDelivery, DeliveryEvents } from "./channel-delivery.js";
import { openLocalDelivery } from "./local-delivery.js";
import { createSharedDelivery } from "./shared-delivery.js";

/** The shared store when one is configured, else the files under `.downcity/channels/`. */
export async function openChannelDelivery(
  options: DeliveryEvents & {
    rootDir: string;
    runtime: AgentRuntime;
    logger: Logger;
    maxRunAttempts: number;
    retryDelayMs: number;
    maxSendAttempts?: number;
    store?: DowncityStore;
    workerId: string;
    leaseMs?: number;
    concurrency?: number;
  },
): Promise<ChannelDelivery> {
  const { store, workerId, leaseMs, concurrency, rootDir, ...common } = options;
  if (store)
    return createSharedDelivery({
      ...common,
      store,
      owner: workerId,
      leaseMs: leaseMs ?? defaultLeaseMs,
      concurrency: concurrency ?? 4,
    });
  const { channelsDir } = downcityPaths(rootDir);
  return openLocalDelivery({
    ...common,
    inboxPath: join(channelsDir, "inbox.jsonl"),
    outboxPath: join(channelsDir, "outbox.jsonl"),
  });
}
