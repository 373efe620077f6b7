import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { useTempDir } from "@downcity/testkit/vitest";
import { generateText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { ScriptedHttpError, startOpenAICompatibleServer } from "./openai-compatible-server.js";

const temp = useTempDir("downcity-oai-", "each");

describe("startOpenAICompatibleServer", () => {
  it("drives a real AI SDK provider over HTTP: streamed text, tool calls and non-streamed replies", async () => {
    const server = await startOpenAICompatibleServer({
      script: [
        { toolCalls: [{ toolName: "lookup", input: { key: "color" } }] },
        (call) => `color is ${call.messages.at(-1)?.text}`,
        "plain",
      ],
    });
    const provider = createOpenAICompatible({ name: "scripted", baseURL: server.url, apiKey: "k" });
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: provider.chatModel("scripted"),
      tools: { lookup: tool({ inputSchema: z.object({ key: z.string() }), execute: async () => "blue" }) },
    });
    const deltas: string[] = [];
    runtime.on((event) => {
      if (event.type === "text-delta") deltas.push(event.delta);
    });
    const result = await runtime.send({ contextId: "c", text: "what color?" });
    expect(result.text).toBe("color is blue");
    expect(deltas.join("")).toBe("color is blue");
    expect(server.requests[0]?.stream).toBe(true);
    expect(server.calls[0]?.tools).toContain("lookup");
    const plain = await generateText({ model: provider.chatModel("scripted"), prompt: "hi" });
    expect(plain.text).toBe("plain");
    await runtime.close();
    await server.close();
  });

  it("answers scripted HTTP errors and keeps answering with `respond` after the script", async () => {
    const server = await startOpenAICompatibleServer({
      script: [new ScriptedHttpError(400, "maximum context length exceeded", "context_length_exceeded")],
      respond: () => "fallback",
    });
    const provider = createOpenAICompatible({ name: "scripted", baseURL: server.url });
    await expect(
      generateText({ model: provider.chatModel("m"), prompt: "x", maxRetries: 0 }),
    ).rejects.toThrow(/maximum context/);
    expect((await generateText({ model: provider.chatModel("m"), prompt: "x" })).text).toBe("fallback");
    await server.close();
  });
});
