import type { ToolApprover } from "@downcity/core";
import { newApprovalCode } from "./approval-code.js";
import type { ApprovalGate, ApprovalRoute, Outcome } from "./approval-gate-contract.js";
import type { ApprovalStore, PendingApproval } from "./approval-store.js";
import type { ApprovalsConfig } from "./approvals-section.js";

/** The "always" rule of a tool: stored in the approval store beside the shell prefixes. */
export const toolRule = (toolName: string): string => `Tool(${toolName})`;

/** JSON with sorted keys: the same call always reads the same (a restarted run's call finds its request). */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) =>
    entry && typeof entry === "object" && !Array.isArray(entry)
      ? Object.fromEntries(
          Object.entries(entry as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : entry,
  );
}

/** What the model reads when a tool call it made is not run. */
function toolRefusalText(
  toolName: string,
  outcome: Exclude<Outcome, "once" | "always"> | "unanswerable" | "mode-deny",
  by = "",
): string {
  switch (outcome) {
    case "deny":
      return `Tool call refused: an approver${by ? ` (${by})` : ""} denied ${toolName}. Do not retry it; ask the user what to do instead.`;
    case "timeout":
      return `Tool call refused: nobody approved ${toolName} in time, so it was denied. The chat was told; ask the user before trying again.`;
    case "unanswerable":
      return `Tool call refused: ${toolName} needs a person's approval, and this run has nobody to ask (a scheduled task or a follow-up). Report that it needs approval.`;
    case "taken":
      return `Tool call not run again: ${toolName} was approved after this run was interrupted and already ran once. Do not call it again unless the user asks.`;
    case "mode-deny":
      return `Tool call refused: ${toolName} needs a person's approval, and approvals.mode is "deny" in downcity.json.`;
  }
}

/** Options of `createToolApprover`. */
export interface ToolApproverOptions {
  gate: ApprovalGate;
  config: ApprovalsConfig;
  store: ApprovalStore;
  rootDir: string;
  route(contextId: string): Promise<ApprovalRoute | undefined>;
  /** Masks secrets in what is shown or stored. */
  mask(text: string): string;
  now?: () => number;
}

/**
 * The daemon's approver of tool calls whose tool declares `needsApproval` (MCP servers with
 * `approval`, plug-in tools): the same flow as shell commands, a request in the chat the run came
 * from, answered with `/approve CODE [always]` or `/deny CODE`, denied at the timeout. "Always"
 * stores `Tool(<name>)`. Runs nobody can answer (tasks, follow-ups) are refused at once; so is every
 * call under `approvals.mode: "deny"`. The declaration asks even under `mode: "off"`: it is the
 * tool's (or the operator's per-server) explicit choice.
 */
export function createToolApprover(options: ToolApproverOptions): ToolApprover {
  const { gate, config, store } = options;
  const now = options.now ?? Date.now;
  return async (request) => {
    const { toolName, contextId } = request;
    if (config.mode === "deny") return toolRefusalText(toolName, "mode-deny");
    if ((await store.rules()).some((rule) => rule.pattern === toolRule(toolName))) return undefined;
    const unattended = request.origin === "internal" || contextId.startsWith("task-run:");
    const route = unattended ? undefined : await options.route(contextId);
    if (!route) return toolRefusalText(toolName, "unanswerable");
    const shownInput = options.mask(stableJson(request.input ?? {}));
    let input: unknown = request.input;
    try {
      input = JSON.parse(shownInput);
    } catch {
      input = shownInput;
    }
    const pending: PendingApproval = {
      code: newApprovalCode(new Set((await store.pending()).map((entry) => entry.code))),
      command: `${toolName} ${shownInput.length > 400 ? `${shownInput.slice(0, 400)}…` : shownInput}`,
      raw: `${toolRule(toolName)} ${stableJson(request.input ?? {})}`,
      cwd: options.rootDir,
      tty: false,
      contextId,
      requestId: request.requestId,
      route,
      tool: { name: toolName, input, toolCallId: request.toolCallId },
      prefixes: [toolRule(toolName)],
      createdAt: new Date(now()).toISOString(),
      expiresAt: new Date(now() + config.timeoutMs).toISOString(),
    };
    const outcome = await gate.ask(pending);
    if (outcome === "once" || outcome === "always") return undefined;
    const by = (await store.decisions({ contextId, limit: 50 })).findLast(
      (entry) => entry.command === pending.command,
    )?.by;
    return toolRefusalText(toolName, outcome, by);
  };
}

/** What the chat hears when a tool call is approved after its run was cut off (a restart). */
export function approvedToolOrphanText(pending: Pick<PendingApproval, "code" | "command">): string {
  return `Approved (${pending.code}): ${pending.command} will run when the agent calls it again (the run that asked was interrupted by a restart).`;
}
