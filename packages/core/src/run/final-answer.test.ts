import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { messageText } from "../history/history-message.js";
import { createScriptedModel } from "../test/scripted-model.js";

const temp = useTempDir("downcity-final-answer-", "each");

async function runScript(script: Parameters<typeof createScriptedModel>[0], maxSteps?: number) {
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model: createScriptedModel(script).model,
    ...(maxSteps ? { maxSteps } : {}),
  });
  const delivered: string[] = [];
  runtime.registerSender("tg", (message) => void delivered.push(message.text));
  const result = await runtime.send({ contextId: "tg:1", text: "go", channel: "tg", chatId: "1" });
  const history = await runtime.history("tg:1").read();
  await runtime.close();
  return { delivered, result, answer: history.at(-1) };
}

describe("the final answer of a run", () => {
  it("delivers the text written after the last chat_send as the answer", async () => {
    const { delivered, result } = await runScript([
      { toolCalls: [{ toolName: "chat_send", input: { text: "Working on it…" } }] },
      "The build passes.",
    ]);
    expect(delivered).toEqual(["Working on it…", "The build passes."]);
    expect(result.text).toBe("Working on it…\n\nThe build passes.");
  });

  it("does not send the final text again when chat_send already sent the same text", async () => {
    const { delivered } = await runScript([
      { toolCalls: [{ toolName: "chat_send", input: { text: "All done." } }] },
      " All done.\n",
    ]);
    expect(delivered).toEqual(["All done."]);
  });

  it("ends a run that reached the step limit with a notice saying so and that the user can continue", async () => {
    const { delivered, result, answer } = await runScript(
      [
        { toolCalls: [{ toolName: "chat_load_history", input: { count: 1 } }] },
        { toolCalls: [{ toolName: "chat_load_history", input: { count: 2 } }] },
        "never reached",
      ],
      2,
    );
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toContain("I stopped after 2 steps");
    expect(delivered[0]).toContain('Say "continue"');
    expect(result.text).toBe(delivered[0]);
    expect(answer && messageText(answer)).toContain("I stopped after 2 steps");
  });
});
