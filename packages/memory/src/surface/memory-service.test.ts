import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contextDir, createHistoryStore, createServiceRegistry } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, describe, expect, it } from "vitest";
import { createMemory } from "../create-memory.js";
import { createMemoryService } from "./memory-service.js";

const contextId = "feishu:chat-1";
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

async function setup() {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-service-"));
  roots.push(rootDir);
  const scripted = createScriptedModel();
  const memory = createMemory({
    rootDir,
    model: scripted.model,
    history: (id) => createHistoryStore({ dir: join(contextDir(rootDir, id), "messages") }),
  });
  const registry = createServiceRegistry();
  registry.register(createMemoryService(memory));
  return { registry, scripted };
}

describe("memory service", () => {
  it("exposes status, search, remember, forget and compact with validated input", async () => {
    const { registry, scripted } = await setup();
    expect(
      registry
        .list()
        .find((service) => service.name === "memory")
        ?.actions.map((action) => action.name),
    ).toEqual(["status", "search", "remember", "forget", "compact"]);
    const remembered = (await registry.invoke("memory", "remember", {
      text: "Ship on Fridays",
      contextId,
    })) as {
      entry: { id: string };
    };
    await registry.invoke("memory", "remember", { text: "Works in Berlin", scope: "profile" });
    await registry.invoke("memory", "remember", { text: "Uses vim" }, { contextId });

    await expect(
      registry.invoke("memory", "search", { query: "fridays" }, { contextId }),
    ).resolves.toMatchObject({
      results: [{ id: remembered.entry.id, scope: "context", text: "Ship on Fridays", via: "remember" }],
    });
    await expect(registry.invoke("memory", "status", { contextId })).resolves.toMatchObject({
      contextId,
      entries: 2,
      pending: 0,
      threshold: 40,
    });
    await expect(registry.invoke("memory", "status", {})).resolves.toEqual({
      contexts: [contextId],
      profileEntries: 1,
    });

    await expect(
      registry.invoke("memory", "forget", { contextId, entryId: remembered.entry.id }),
    ).resolves.toMatchObject({
      forgotten: [{ text: "Ship on Fridays" }],
    });
    await expect(registry.invoke("memory", "forget", { contextId })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "payload.entryId",
    });
    await expect(registry.invoke("memory", "remember", { text: "no context" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "contextId",
    });

    scripted.push(JSON.stringify({ entries: [{ ids: ["m-unknown"], kind: "fact", text: "x" }] }));
    await expect(registry.invoke("memory", "compact", { contextId })).rejects.toMatchObject({
      code: "MODEL_ERROR",
    });
  });
});
