import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { createScriptedModel } from "../test/scripted-model.js";
import type { RuntimeEvent } from "./runtime-event.js";

const temp = useTempDir("downcity-finish-", "each");

describe("finishing a run", () => {
  it("fails the run when its reply cannot be sent, and stores no answer a replay would take as sent", async () => {
    const runtime = createAgentRuntime({ rootDir: temp.path, model: createScriptedModel(["hello"]).model });
    runtime.registerSender("telegram", () => {
      throw new Error("chat not reachable");
    });
    const events: RuntimeEvent[] = [];
    runtime.on((event) => events.push(event));
    const reply = runtime.send({ contextId: "telegram:1", channel: "telegram", chatId: "1", text: "hi" });
    await expect(reply).rejects.toMatchObject({
      code: "MODEL_ERROR",
      message: expect.stringContaining("chat not reachable"),
    });
    expect(events.map((event) => event.type)).toContain("run-error");
    expect(events.map((event) => event.type)).not.toContain("run-end");
    const stored = await runtime.history("telegram:1").read();
    expect(stored.map((message) => message.role)).toEqual(["user"]);
    await runtime.close();
  });

  it("ends a run that has no model like any failed run: run-start, then run-error naming the setting", async () => {
    const runtime = createAgentRuntime({ rootDir: temp.path, modelHint: "Set llm in downcity.json." });
    const events: RuntimeEvent[] = [];
    runtime.on((event) => events.push(event));
    await expect(runtime.send({ contextId: "cli:main", text: "hi" })).rejects.toMatchObject({
      code: "MODEL_NOT_CONFIGURED",
      message: "Set llm in downcity.json.",
    });
    expect(events.map((event) => event.type)).toEqual(["message-queued", "run-start", "run-error"]);
    await runtime.close();
  });
});
