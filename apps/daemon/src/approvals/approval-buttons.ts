import { type ChannelAction, type ChatActionHandler, defineChatAction } from "@downcity/core";
import type { ApprovalGate } from "./approval-gate-contract.js";
import type { PendingApproval } from "./approval-store.js";

const choices = { once: "once", always: "always", deny: "deny" } as const;
type Choice = keyof typeof choices;

/**
 * The buttons under an approval request (shown where the adapter has `capabilities.actions`; the
 * text says how to answer with a command everywhere): Allow once, Always allow `<prefix> *`, Deny.
 * Their ids are `approval:<code>:<choice>`, far below Telegram's 64-byte limit.
 */
export function approvalButtons(pending: Pick<PendingApproval, "code" | "prefixes">): ChannelAction[] {
  const always = pending.prefixes.length === 1 ? `Always allow ${pending.prefixes[0]}` : "Always allow these";
  return [
    { id: `approval:${pending.code}:once`, label: "Allow once" },
    // Telegram cuts button labels past 64 characters; a long prefix is shortened, never the id.
    { id: `approval:${pending.code}:always`, label: always.length > 60 ? `${always.slice(0, 59)}…` : always },
    { id: `approval:${pending.code}:deny`, label: "Deny" },
  ];
}

const toasts: Record<Choice, string> = {
  once: "Allowed once",
  always: "Allowed from now on",
  deny: "Denied",
};

/**
 * Presses of approval buttons: an approver's press settles the request and the request's buttons
 * are removed (its text becomes the outcome); anyone else is told privately that only approvers can
 * answer, and nothing runs. An unknown or settled code gets a clear answer and loses its buttons.
 */
export function approvalActionHandler(gate: ApprovalGate): ChatActionHandler {
  return defineChatAction({
    prefix: "approval",
    async handler({ channel, event, value }) {
      const [code = "", choice = ""] = value.split(":");
      if (!(choice in choices)) return { answer: "This button is not one of an approval request." };
      const who = `${channel}:${event.userId}`;
      if (!gate.isApprover(who)) return { answer: "Only approvers can answer" };
      const result = await gate.answer({ code, decision: choice as Choice, by: who });
      return {
        answer: result.ok ? toasts[choice as Choice] : result.message,
        // The gate edits the request itself where it can; the pressed message is edited otherwise.
        ...(result.edited ? {} : { edit: { text: result.message, actions: [] } }),
      };
    },
  });
}
