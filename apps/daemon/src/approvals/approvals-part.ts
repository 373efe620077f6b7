import type { AgentRuntime, ChannelInbox } from "@downcity/core";
import type { ApprovalGate } from "./approval-gate.js";

/** What the approvals component gives the rest of the daemon. */
export interface Approvals {
  gate: ApprovalGate;
  /** The runtime the channel host gets, so approval notices reach its chats. */
  runtimeForChannels: AgentRuntime;
  /** The channel host's `interceptInbox`: answers `/approve` and `/deny`. */
  interceptInbox: (channel: string, inbox: ChannelInbox) => ChannelInbox;
}
