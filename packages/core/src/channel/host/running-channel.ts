import type { ServiceDefinition } from "../../service/define-service.js";
import type { PollerLock } from "../../store/downcity-store.js";
import type { PairingStore } from "../../store/file/file-pairing-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import type { ChannelAccess } from "./channel-access.js";
import type { ChannelInstance, ChannelStatus } from "./channel-instance.js";
import type { ChannelSettings } from "./channel-settings.js";

/** A configured channel as the host runs it: its adapter, access state, counters and stop signal. */
export interface RunningChannel {
  instance: ChannelInstance;
  adapter?: ChannelAdapter;
  services?: ServiceDefinition[];
  accessConfig?: ChannelAccess;
  /** What the host reads from the channel's section: delivery retries, typing, progress. */
  settings?: ChannelSettings;
  pairing?: PairingStore;
  status: ChannelStatus;
  abort: AbortController;
  /** Held while this worker is the one that polls the channel (stores several workers share). */
  pollerLock?: Promise<PollerLock | undefined>;
}

/** A channel not started yet, every counter at zero. */
export function newRunningChannel(instance: ChannelInstance): RunningChannel {
  return {
    instance,
    status: {
      name: instance.name,
      adapter: instance.source,
      state: "stopped",
      counts: { accepted: 0, duplicate: 0, denied: 0, sent: 0, retried: 0, deadLettered: 0 },
    },
    abort: new AbortController(),
  };
}
