import type { ChatCommandDefinition } from "@downcity/core";
import type { ApprovalGate } from "./approval-gate-contract.js";

const command = /^\s*\/(approve|deny)(?:@\S+)?(?:\s+(\S+))?(?:\s+(\S+))?\s*$/i;

/**
 * Answers `/approve CODE [always]` and `/deny CODE` from a chat; any other text is not ours
 * (undefined). Every command gets an answer: a settled request, an unknown or expired code, a
 * sender who is not an approver, or how to type it.
 */
export async function handleApprovalChatCommand(
  gate: ApprovalGate,
  input: { channel: string; userId: string; text: string },
): Promise<string | undefined> {
  const match = command.exec(input.text);
  if (!match) return undefined;
  const verb = (match[1] as string).toLowerCase();
  const code = match[2];
  const extra = match[3]?.toLowerCase();
  const usage = "Answer with /approve CODE, /approve CODE always or /deny CODE (the code from the request).";
  if (!code || (extra !== undefined && (verb === "deny" || extra !== "always"))) return usage;
  if (!/^[a-z0-9]{4,6}$/i.test(code)) return `"${code}" is not an approval code. ${usage}`;
  const who = `${input.channel}:${input.userId}`;
  if (!gate.isApprover(who)) return `Only approvers can answer approval requests (you are ${who}).`;
  const result = await gate.answer({
    code,
    decision: verb === "deny" ? "deny" : extra === "always" ? "always" : "once",
    by: who,
  });
  // A settled request's outcome is posted by the gate itself; only a failure needs an answer here.
  return result.ok ? undefined : result.message;
}

/**
 * `/approve` and `/deny` as chat commands of the channel host's registry: answered with no model
 * call, after access control (in a group let in, also without a mention of the bot), deduped by
 * event id like every command.
 */
export function approvalChatCommands(gate: ApprovalGate): ChatCommandDefinition[] {
  const command = (verb: "approve" | "deny", description: string): ChatCommandDefinition => ({
    name: verb,
    description,
    // The code says which request it answers: typed under the request in a group, no mention needed.
    answersWithoutMention: true,
    handler: ({ channel, event, args }) =>
      handleApprovalChatCommand(gate, { channel, userId: event.userId, text: `/${verb} ${args}` }),
  });
  return [
    command("approve", "Approve a command the agent asked to run: /approve CODE [always]"),
    command("deny", "Refuse a command the agent asked to run: /deny CODE"),
  ];
}
