import type { ToolSet } from "ai";
import type { RunRecorder } from "./run-recorder.js";

/**
 * The run's tools, each call journaled: its start is durable before the tool runs (so a restart
 * knows it may have had effects), its output or error is recorded when it returns.
 */
export function journaledTools(tools: ToolSet, recorder: RunRecorder): ToolSet {
  const wrapped: ToolSet = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (!execute) {
      wrapped[toolName] = tool;
      continue;
    }
    wrapped[toolName] = {
      ...tool,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        const { toolCallId } = options;
        await recorder.toolStarted({ toolCallId, toolName, input });
        const startedAt = Date.now();
        try {
          const output = await execute(input, options);
          recorder.toolEnded({ toolCallId, toolName, output, startedAt });
          return output;
        } catch (error) {
          recorder.toolEnded({
            toolCallId,
            toolName,
            error: error instanceof Error ? error.message : String(error),
            startedAt,
          });
          throw error;
        }
      },
    } as ToolSet[string];
  }
  return wrapped;
}
