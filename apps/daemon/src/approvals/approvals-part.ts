import type { AgentRuntime, ChannelHost, ChatActionHandler, ChatCommandDefinition } from "@downcity/core";
import type { ApprovalGate } from "./approval-gate-contract.js";
import type { ApprovalStore } from "./approval-store.js";

/** What the approvals component gives the rest of the daemon. */
export interface Approvals {
  gate: ApprovalGate;
  store: ApprovalStore;
  /** `approvals.mode` of downcity.json. */
  mode: "off" | "ask" | "deny";
  /** The runtime the channel host gets, so approval notices reach its chats. */
  runtimeForChannels: AgentRuntime;
  /** `/approve` and `/deny`, for the channel host's command registry. */
  chatCommands: ChatCommandDefinition[];
  /** The handler of approval buttons (`approval:<code>:<choice>`), for the channel host. */
  chatActions: ChatActionHandler[];
  /**
   * Hands the approvals the channel host, so a settled request's buttons are removed whoever settled
   * it, also after a restart (each request's sent message is kept with it).
   */
  useChannelHost(host: Pick<ChannelHost, "editSent" | "onButtonsSent">): void;
}
