import type { ToolSet } from "ai";
import { createChatTools } from "../chat/chat-tools.js";
import { prepareOutgoingFile } from "../chat/outgoing-file.js";
import { approvalGatedTools } from "./approval-gated-tools.js";
import type { RunContext } from "./run-context.js";
import type { RunDeps, RunScope } from "./run-scope.js";

/**
 * Builds the tools of one run: every registered source (factories are called with the run), then
 * the chat tools bound to this run's history and replies, with each zod schema converted once.
 */
export async function assembleRunTools(
  deps: Pick<RunDeps, "toolSources" | "withCachedSchemas" | "rootDir" | "toolApprover">,
  scope: RunScope,
  run: { context: RunContext; visibleMessageIds: () => Set<string> },
): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const source of deps.toolSources)
    Object.assign(tools, typeof source === "function" ? await source(run.context) : source);
  Object.assign(
    tools,
    createChatTools({
      history: scope.history,
      visibleMessageIds: run.visibleMessageIds,
      deliver: async (text, to, files) => {
        // A message to someone else is not this chat's reply; the final text still answers here.
        if (!to && text) scope.sent.push(text);
        return scope.deliver(text, "chat_send", to, files);
      },
      prepareFiles: (paths) => Promise.all(paths.map((path) => prepareOutgoingFile(deps.rootDir, path))),
    }),
  );
  // Tools that declare needsApproval ask the host's approval flow before they run.
  return deps.withCachedSchemas(approvalGatedTools(tools, deps.toolApprover?.(), run.context));
}
