import type { AgentRuntime, ChannelInbox } from "@downcity/core";
import type { ApprovalGate } from "./approval-gate.js";
import type { ApprovalStore } from "./approval-store.js";

/** What the approvals component gives the rest of the daemon. */
export interface Approvals {
  gate: ApprovalGate;
  store: ApprovalStore;
  /** `approvals.mode` of downcity.json. */
  mode: "off" | "ask" | "deny";
  /** The runtime the channel host gets, so approval notices reach its chats. */
  runtimeForChannels: AgentRuntime;
  /** The channel host's `interceptInbox`: answers `/approve` and `/deny`. */
  interceptInbox: (channel: string, inbox: ChannelInbox) => ChannelInbox;
}
