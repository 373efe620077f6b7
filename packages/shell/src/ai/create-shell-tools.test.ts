import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { shellToolNames } from "../testing/shell-tool-names.js";
import { createShellTools } from "./create-shell-tools.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

type Prompt = Array<{ role: string; content: unknown }>;
type ToolCall = { toolName: string; input: Record<string, unknown> };

/** Output of the most recent tool result in the prompt, as the model would see it. */
function lastToolResult(prompt: Prompt): Record<string, unknown> {
  for (const message of [...prompt].reverse()) {
    if (message.role !== "tool" || !Array.isArray(message.content)) continue;
    const part = message.content.at(-1) as { output: { type: string; value: unknown } };
    return part.output.value as Record<string, unknown>;
  }
  return {};
}

/** A model that plays a fixed script; each turn sees the previous tool result. */
function scriptedModel(turns: Array<(previous: Record<string, unknown>) => ToolCall | string>) {
  const seen: Array<Record<string, unknown>> = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const previous = lastToolResult(options.prompt as Prompt);
      seen.push(previous);
      const step = turns.shift()?.(previous) ?? "done";
      if (typeof step === "string") {
        return {
          content: [{ type: "text", text: step }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `call_${seen.length}`,
            toolName: step.toolName,
            input: JSON.stringify(step.input),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
  });
  return { model, seen };
}

describe("createShellTools", () => {
  test("exposes the nine tools with zod input schemas", () => {
    temp = createTempEngine();
    const tools = createShellTools(temp.engine, { contextId: "c" });
    expect(Object.keys(tools).sort()).toEqual(shellToolNames);
  });

  test("a scripted model drives start, write, wait, status, read, exec and close", async () => {
    temp = createTempEngine();
    let shellId = "";
    const { model, seen } = scriptedModel([
      () => ({
        toolName: "shell_start",
        input: { command: 'read name; echo "hi $name"; echo ctx=$DC_CTX_CONTEXT_ID', yield_ms: 100 },
      }),
      (previous) => {
        shellId = String(previous.shell_id);
        return { toolName: "shell_write", input: { shell_id: shellId, input: "model\n" } };
      },
      () => ({ toolName: "shell_wait", input: { shell_id: shellId, until: "exit", cursor: 0 } }),
      () => ({ toolName: "shell_status", input: { shell_id: shellId } }),
      () => ({ toolName: "shell_read", input: { shell_id: shellId, cursor: 0 } }),
      () => ({ toolName: "shell_write", input: { shell_id: shellId, input: "too late\n" } }),
      () => ({ toolName: "shell_exec", input: { command: "echo $DC_CTX_REQUEST_ID" } }),
      () => ({ toolName: "shell_close", input: { shell_id: shellId } }),
      () => "all done",
    ]);
    const result = await generateText({
      model,
      prompt: "say hi through the shell",
      tools: createShellTools(temp.engine, { contextId: "chat-1", requestId: "req-9" }),
      stopWhen: stepCountIs(12),
    });
    expect(result.text).toBe("all done");
    expect(seen[1]).toMatchObject({ status: "running" });
    expect(seen[3]).toMatchObject({ reason: "exited", exit_code: 0 });
    expect(String(seen[3]?.output)).toContain("hi model");
    expect(String(seen[3]?.output)).toContain("ctx=chat-1");
    expect(seen[4]).toMatchObject({ status: "exited", context_id: "chat-1" });
    expect(seen[5]).toMatchObject({ has_more: false, skipped_bytes: 0 });
    expect(seen[6]).toMatchObject({ error: "SESSION_EXITED" });
    expect(seen[7]).toMatchObject({ status: "exited", output: "req-9\n" });
    expect(seen[8]).toMatchObject({ shell_id: shellId, status: "exited" });
    expect(temp.events).toMatchObject([{ shell_id: shellId, context_id: "chat-1", request_id: "req-9" }]);
  });
});
