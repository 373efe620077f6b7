import type { PendingApproval } from "./approval-store.js";

const minutes = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;

/** The chat text of a request: the command (secrets masked), where it runs, why, and how to answer. */
export function approvalRequestText(
  pending: PendingApproval,
  options: { timeoutMs: number; approvers: string[] },
): string {
  const always = pending.prefixes.map((prefix) => `\`${prefix}\``).join(", ");
  return [
    `Approval needed (${pending.code}): the agent wants to run`,
    `  ${pending.command}`,
    `in ${pending.cwd}${pending.tty ? " (interactive session)" : ""}.`,
    ...(pending.reason ? [`Reason given: ${pending.reason}`] : []),
    `Reply /approve ${pending.code} to run it once, /approve ${pending.code} always to also allow ${always} from now on, or /deny ${pending.code}.`,
    `The agent waits ${minutes(options.timeoutMs)}; then the command is denied.`,
    ...(options.approvers.length > 0 ? [`Only ${options.approvers.join(", ")} can answer.`] : []),
  ].join("\n");
}

/** What the chat hears once a request is settled. */
export function approvalOutcomeText(
  pending: Pick<PendingApproval, "code" | "command">,
  outcome: "once" | "always" | "deny" | "timeout",
  by: string,
  prefixes: readonly string[] = [],
): string {
  switch (outcome) {
    case "once":
      return `Approved once by ${by} (${pending.code}): running ${pending.command}`;
    case "always":
      return `Approved by ${by} (${pending.code}), and ${prefixes.map((prefix) => `\`${prefix}\``).join(", ")} will run without asking from now on (downcity approvals rules --revoke undoes it).`;
    case "deny":
      return `Denied by ${by} (${pending.code}): ${pending.command} did not run.`;
    case "timeout":
      return `No answer in time (${pending.code}): ${pending.command} was denied and did not run.`;
  }
}

/** What the model reads when a command it asked for is not run. */
export function modelRefusalText(
  command: string,
  outcome: "deny" | "timeout" | "unanswerable" | "mode-deny" | "taken",
  detail = "",
): string {
  switch (outcome) {
    case "deny":
      return `Command refused: an approver denied "${command}"${detail ? ` (${detail})` : ""}. Do not retry it; ask the user what to do instead.`;
    case "timeout":
      return `Command refused: nobody approved "${command}" in time, so it was denied. The chat was told; ask the user before trying again.`;
    case "unanswerable":
      return `Command refused: "${command}" needs a human's approval (approvals.mode is "ask"), and this run has nobody to ask. Report that it needs approval.`;
    case "taken":
      return `Command not run again: "${command}" was approved after this run was interrupted and already ran once on its own; its result went to the chat. Do not run it again unless the user asks.`;
    case "mode-deny":
      return `Command refused: "${command}" is not covered by approvals.allow in downcity.json, and approvals.mode is "deny". ${detail}`;
  }
}
