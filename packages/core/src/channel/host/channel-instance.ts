import type { ChannelAdapterDefinition, ChannelState } from "../adapter/channel-adapter.js";

/** One configured channel instance, as the host receives it from its loader. */
export interface ChannelInstance {
  /** The instance name: the channel part of its context ids. */
  name: string;
  /** The adapter as configured (package name or ./file). */
  source: string;
  definition?: ChannelAdapterDefinition;
  /** The instance's options from downcity.json, without `adapter` and `access`. */
  options?: Record<string, unknown>;
  /** The raw `access` section. */
  access?: unknown;
  /** Why the adapter could not be loaded. */
  loadError?: unknown;
}

/** Counters and state of one channel, as `downcity channels list` shows them. */
export interface ChannelStatus {
  name: string;
  adapter: string;
  /** `standby`: another worker of a shared store runs this channel's poller; this one sends only. */
  state: ChannelState | "stopped" | "standby";
  error?: string;
  lastEventAt?: string;
  counts: {
    accepted: number;
    duplicate: number;
    denied: number;
    sent: number;
    retried: number;
    deadLettered: number;
  };
}
