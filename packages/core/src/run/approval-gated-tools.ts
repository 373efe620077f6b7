import type { ToolSet } from "ai";
import type { RunContext } from "./run-context.js";

/** A tool call that declared it needs a person's approval (`needsApproval` on an AI SDK tool). */
export interface ToolApprovalRequest {
  toolName: string;
  toolCallId: string;
  input: unknown;
  contextId: string;
  requestId: string;
  /** "internal" runs (a finished job, a task) have nobody to ask: they must not wait. */
  origin: RunContext["origin"];
}

/**
 * Decides a tool call that needs approval: resolves to undefined once it may run, or to the
 * refusal the model reads. The daemon's approvals gate registers one (`registerToolApprover`).
 */
export type ToolApprover = (request: ToolApprovalRequest) => Promise<string | undefined>;

const noApprover =
  "needs a person's approval (the tool declares needsApproval), and this runtime has no approval flow; it was not run.";

type ToolCallOptions = { toolCallId: string; messages: unknown[]; experimental_context?: unknown };
type NeedsApproval = boolean | ((input: unknown, options: ToolCallOptions) => boolean | PromiseLike<boolean>);

/**
 * The run's tools with every `needsApproval` honoured by the runtime rather than by the AI SDK:
 * the declaration is taken off the tool (so the SDK does not stop the run for a client-side
 * answer) and its `execute` first asks `approver`. A refusal is the tool's error, which the model
 * reads; without an approver such a call is refused, never run unasked.
 */
export function approvalGatedTools(
  tools: ToolSet,
  approver: ToolApprover | undefined,
  run: Pick<RunContext, "contextId" | "requestId" | "origin">,
): ToolSet {
  const gated: ToolSet = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const { needsApproval, ...rest } = tool as typeof tool & { needsApproval?: NeedsApproval };
    const execute = tool.execute;
    if (!needsApproval || !execute) {
      gated[toolName] = tool;
      continue;
    }
    gated[toolName] = {
      ...rest,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        const needed =
          typeof needsApproval === "function"
            ? await needsApproval(input, options as unknown as ToolCallOptions)
            : needsApproval;
        if (needed) {
          const refusal = approver
            ? await approver({ toolName, toolCallId: options.toolCallId, input, ...run })
            : `Tool "${toolName}" ${noApprover}`;
          if (refusal !== undefined) throw new Error(refusal);
        }
        return execute(input, options);
      },
    } as ToolSet[string];
  }
  return gated;
}
