import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentRuntime, createAgentRuntime, type LogFields } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, describe, expect, it } from "vitest";
import { createMemory, type Memory } from "./create-memory.js";
import { createMemoryPromptProvider } from "./prompt/memory-prompt-provider.js";
import { contextMemoryFiles } from "./store/memory-files.js";
import { parsePrimaryMarkdown } from "./store/primary-markdown.js";
import { createMemoryTools } from "./surface/memory-tools.js";

const contextId = "console:main";
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Wires memory into a real runtime the way the daemon does: run-end -> background maintenance. */
async function wire(
  chatTurns: Parameters<typeof createScriptedModel>[0],
  memoryTurns: Parameters<typeof createScriptedModel>[0],
) {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-runtime-"));
  const errors: LogFields[] = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (fields: LogFields) => errors.push(fields) };
  const chat = createScriptedModel(chatTurns);
  const extractor = createScriptedModel(memoryTurns);
  const runtime: AgentRuntime = createAgentRuntime({ rootDir, model: chat.model, logger });
  const memory: Memory = createMemory({
    rootDir,
    model: extractor.model,
    history: (id) => runtime.history(id),
    threshold: 2,
    logger,
  });
  runtime.on((event) => {
    if (event.type === "run-end") void memory.runMemoryMaintenance(event.contextId);
  });
  runtime.addPromptProvider(createMemoryPromptProvider({ rootDir }));
  runtime.addTools(createMemoryTools(memory));
  cleanups.push(async () => {
    await runtime.close();
    await memory.close();
    await rm(rootDir, { recursive: true, force: true });
  });
  return { rootDir, runtime, memory, chat, extractor, errors };
}

describe("memory in an agent runtime", () => {
  it("never lets maintenance errors reach the user's reply", async () => {
    const t = await wire(
      ["Hello Ada!", "Still here."],
      [new Error("extractor 500"), new Error("extractor 500 again")],
    );
    const first = await t.runtime.send({ contextId, text: "I'm Ada." });
    expect(first.text).toBe("Hello Ada!");
    await t.memory.idle();
    expect(t.extractor.calls).toHaveLength(1);
    expect(t.errors.some((fields) => (fields.err as { message?: string })?.message === "extractor 500")).toBe(
      true,
    );

    const second = await t.runtime.send({ contextId, text: "Are you there?" });
    expect(second.text).toBe("Still here.");
    await t.memory.idle();
    const status = await t.memory.status(contextId);
    expect(status).toMatchObject({ pending: 4, lastMemorizedEntryCount: 0, lastError: { attempts: 2 } });
    expect(await t.runtime.history(contextId).read()).toHaveLength(4);
  });

  it("memorises after runs, and the provider shows memory to the next run", async () => {
    const t = await wire(
      ["Nice to meet you.", "You use pnpm."],
      [
        (call) => {
          const id =
            /\[id=([^\]]+)\] user: I use pnpm/.exec(call.messages.at(-1)?.text ?? "")?.[1] ?? "missing";
          return JSON.stringify({
            entries: [{ kind: "preference", text: "The user uses pnpm.", sourceMessageIds: [id] }],
          });
        },
      ],
    );
    await t.runtime.send({ contextId, text: "I use pnpm." });
    await t.memory.idle();
    const [userMessage] = await t.runtime.history(contextId).read();
    const entries = await t.memory.entries(contextId);
    expect(entries).toMatchObject([{ text: "The user uses pnpm.", sources: [userMessage?.id] }]);

    await t.runtime.send({ contextId, text: "What do I use?" });
    const system = t.chat.calls[1]?.messages
      .filter((message) => message.role === "system")
      .map((message) => message.text);
    expect(system?.join("\n")).toContain("- [preference] The user uses pnpm.");
  });

  it("gives the agent memory_remember and memory_search with the run's context and provenance", async () => {
    const t = await wire(
      [
        {
          toolCalls: [
            {
              toolName: "memory_remember",
              input: { text: "Deploys go out on Fridays.", scope: "context", kind: "decision" },
            },
          ],
        },
        { toolCalls: [{ toolName: "memory_search", input: { query: "deploys" } }] },
        (call) => {
          expect(call.tools).toEqual(expect.arrayContaining(["memory_remember", "memory_search"]));
          return "Remembered.";
        },
      ],
      [],
    );
    const result = await t.runtime.send({ contextId, text: "Remember: we deploy on Fridays." });
    expect(result.text).toBe("Remembered.");
    const searchResult = t.chat.calls[2]?.messages.find((message) =>
      message.text.includes("tool-result memory_search"),
    );
    expect(searchResult?.text).toContain("Deploys go out on Fridays.");
    const [userMessage] = await t.runtime.history(contextId).read();
    const markdown = await readFile(contextMemoryFiles(t.rootDir, contextId).primary, "utf8");
    expect(parsePrimaryMarkdown(markdown).entries).toMatchObject([
      { kind: "decision", text: "Deploys go out on Fridays.", sources: [userMessage?.id], via: "remember" },
    ]);
  });
});
