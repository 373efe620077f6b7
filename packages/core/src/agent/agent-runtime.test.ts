import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DowncityError } from "../errors/downcity-error.js";
import { definePromptProvider } from "../prompt/prompt-provider.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-runtime-", "each");

describe("createAgentRuntime", () => {
  it("runs a tool loop, persists user and assistant messages, and returns the final text", async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "add", input: { a: 2, b: 3 } }] },
      (call) => `sum is ${call.messages.at(-1)?.text.match(/"sum":(\d+)/)?.[1]}`,
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => ({ sum: a + b }),
        }),
      },
    });
    const result = await runtime.send({ contextId: "console:main", text: "add 2 and 3" });
    expect(result.text).toBe("sum is 5");
    expect(result.steps).toBe(2);
    const stored = await runtime.history("console:main").read();
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(stored[1]?.parts.some((part) => part.type === "dynamic-tool")).toBe(true);
    await runtime.close();
  });

  it("orders the system messages from the most stable (default prompt, PROFILE.md, context facts, providers) and puts this turn's facts after the history", async () => {
    await writeFile(join(temp.path, "PROFILE.md"), "You are Pip, a careful agent.");
    const scripted = createScriptedModel(["ok"]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      promptProviders: [
        definePromptProvider({ id: "b", order: 2, provide: () => ({ messages: ["second provider"] }) }),
        definePromptProvider({ id: "a", order: 1, provide: () => ({ messages: ["first provider"] }) }),
        definePromptProvider({
          id: "broken",
          order: 0,
          provide: () => {
            throw new Error("boom");
          },
        }),
      ],
    });
    await runtime.send({ contextId: "tg:42", text: "hi", channel: "tg", chatId: "42", userId: "u1" });
    const messages = scripted.calls[0]?.messages ?? [];
    const system = messages.filter((message) => message.role === "system").map((m) => m.text);
    expect(system[0]).toContain("You are a Downcity agent");
    expect(system[1]).toBe("You are Pip, a careful agent.");
    expect(system[2]).toContain("contextId: tg:42");
    expect(system[2]).toContain(`project root: ${temp.path}`);
    expect(system.indexOf("first provider")).toBeLessThan(system.indexOf("second provider"));
    // This turn's facts come just before the message the run answers, after the older history.
    const note = messages.at(-2);
    expect(note?.role).toBe("system");
    expect(note?.text).toContain("chatId: 42");
    expect(note?.text).toContain("requestId: ");
    expect(messages.at(-1)).toMatchObject({ role: "user", text: expect.stringContaining("hi") });
    await runtime.close();
  });

  it("intersects activeTools of providers with real tools", async () => {
    const scripted = createScriptedModel(["ok"]);
    const noop = tool({ inputSchema: z.object({}), execute: async () => "x" });
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: { alpha: noop, beta: noop, gamma: noop },
      promptProviders: [
        definePromptProvider({
          id: "p1",
          order: 1,
          provide: () => ({ activeTools: ["alpha", "beta", "ghost"] }),
        }),
        definePromptProvider({
          id: "p2",
          order: 2,
          provide: () => ({ activeTools: ["beta", "gamma", "ghost"] }),
        }),
      ],
    });
    await runtime.send({ contextId: "c", text: "hi" });
    expect(scripted.calls[0]?.tools).toEqual(["beta"]);
    await runtime.close();
  });

  it("fails clearly when no model is configured", async () => {
    const runtime = createAgentRuntime({ rootDir: temp.path });
    const error = await runtime.send({ contextId: "c", text: "hi" }).catch((e: unknown) => e);
    expect(DowncityError.isInstance(error)).toBe(true);
    expect((error as DowncityError).code).toBe("MODEL_NOT_CONFIGURED");
    expect((error as DowncityError).message).toContain("llm");
    await runtime.close();
  });

  it("shows internal messages to the model as a system notice", async () => {
    const scripted = createScriptedModel(["noted"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    await runtime.send({ contextId: "c", text: "job sh_1 exited 0", origin: "internal" });
    const last = scripted.calls[0]?.messages.at(-1);
    expect(last?.role).toBe("system");
    expect(last?.text).toContain("job sh_1 exited 0");
    const stored = await runtime.history("c").read();
    expect(stored[0]?.metadata?.origin).toBe("internal");
    await runtime.close();
  });

  it("delivers chat_send text through the channel sender, then the final text, and returns both as the result text", async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "chat_send", input: { text: "working on it" } }] },
      "done",
    ]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    const delivered: string[] = [];
    runtime.registerSender("tg", (message) => {
      delivered.push(`${message.chatId}:${message.text}`);
    });
    const result = await runtime.send({ contextId: "tg:7", text: "go", channel: "tg", chatId: "7" });
    expect(delivered).toEqual(["7:working on it", "7:done"]);
    expect(result.text).toBe("working on it\n\ndone");
    await runtime.close();
  });

  it("writes nothing outside .downcity/context for hostile context ids", async () => {
    const scripted = createScriptedModel(["ok"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    await runtime.send({ contextId: "../../etc/passwd", text: "hi" });
    const path = join(runtime.history("../../etc/passwd").dir ?? "", "messages.jsonl");
    expect(path.startsWith(join(temp.path, ".downcity", "context"))).toBe(true);
    expect(await readFile(path, "utf8")).toContain("hi");
    await runtime.close();
  });
});

describe("routing of internal messages", () => {
  it("replies to an internal message through the channel the conversation last came from", async () => {
    const root2 = await mkdtemp(join(tmpdir(), "downcity-route-"));
    const scripted = createScriptedModel(["first reply", "job finished: all good"]);
    const runtime = createAgentRuntime({ rootDir: root2, model: scripted.model });
    const delivered: string[] = [];
    runtime.registerSender("tg", (message) => {
      delivered.push(`${message.chatId}:${message.text}`);
    });
    await runtime.send({ contextId: "tg:9", text: "start the job", channel: "tg", chatId: "9" });
    await runtime.send({ contextId: "tg:9", text: "job sh_1 exited with 0", origin: "internal" });
    expect(delivered).toEqual(["9:first reply", "9:job finished: all good"]);
    await runtime.close();
    await rm(root2, { recursive: true, force: true });
  });
});
