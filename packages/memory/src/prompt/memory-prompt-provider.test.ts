import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHistoryStore, type HistoryMessage } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { contextMemoryFiles, profileFiles } from "../store/memory-files.js";
import { renderPrimaryMarkdown } from "../store/primary-markdown.js";
import { createMemoryPromptProvider } from "./memory-prompt-provider.js";

const contextId = "telegram:42";
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

const said = (id: string, role: "user" | "assistant", text: string): HistoryMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
  metadata: { createdAt: "2025-01-01T00:00:00.000Z" },
});

const promptContext = (rootDir: string) => ({ rootDir, contextId, requestId: "r1", toolNames: [] });

async function project(entryCount: number, special: Record<number, string> = {}) {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-provider-"));
  roots.push(rootDir);
  const profile = profileFiles(rootDir);
  await mkdir(profile.dir, { recursive: true });
  await writeFile(
    profile.primary,
    "# Profile\n\nThe user is a backend engineer.\nPrefers concise answers.\n",
  );
  await writeFile(profile.other, "Timezone: Europe/Berlin\n");
  const files = contextMemoryFiles(rootDir, contextId);
  await mkdir(files.dir, { recursive: true });
  const entries = Array.from({ length: entryCount }, (_, index) => ({
    id: `m-${index}`,
    kind: "fact" as const,
    text: special[index] ?? `Fact number ${index} about the project, padded to a realistic length.`,
    sources: [`u${index}`],
    createdAt: "2025-01-01T00:00:00.000Z",
    via: "extract" as const,
  }));
  await writeFile(files.primary, renderPrimaryMarkdown({ entries, notes: [] }));
  return rootDir;
}

describe("createMemoryPromptProvider", () => {
  it("injects profile, other.md and the context's memory as system messages, without provenance comments", async () => {
    const rootDir = await project(3);
    const provider = createMemoryPromptProvider({ rootDir });
    expect(provider).toMatchObject({ id: "memory", order: 300 });
    const contribution = await provider.provide(promptContext(rootDir));
    const messages = contribution?.messages as string[];
    expect(messages).toHaveLength(3);
    expect(messages[0]).toContain("The user is a backend engineer.");
    expect(messages[1]).toContain("Timezone: Europe/Berlin");
    expect(messages[2]).toContain("- [fact] Fact number 2 about the project");
    expect(messages.join("\n")).not.toContain("<!--");
  });

  it("respects its char budget and keeps the newest memory entries", async () => {
    const rootDir = await project(200);
    const budgetChars = 1500;
    const contribution = await createMemoryPromptProvider({ rootDir, budgetChars }).provide(
      promptContext(rootDir),
    );
    const messages = contribution?.messages as string[];
    const total = messages.reduce((sum, message) => sum + message.length, 0);
    expect(total).toBeLessThanOrEqual(budgetChars);
    expect(total).toBeGreaterThan(budgetChars * 0.8);
    const memory = messages[2] as string;
    expect(memory).toContain("Fact number 199 ");
    expect(memory).not.toContain("Fact number 0 ");
    expect(memory).toMatch(/\(\d+ more lines omitted; use memory_search\)/);
    // Small profile sections are never starved by a large memory.
    expect(messages[0]).toContain("Prefers concise answers.");
    expect(messages[1]).toContain("Timezone");
  });

  it("keeps older entries relevant to the latest user message next to the newest ones", async () => {
    const rootDir = await project(200, {
      5: "The deploy key of the staging cluster lives in Vault under ops/deploy.",
    });
    const history = createHistoryStore({ dir: join(rootDir, "history") });
    await history.append([
      said("u1", "user", "Hi there"),
      said("a1", "assistant", "Hello! How can I help about the project?"),
      said("u2", "user", "Where is the deploy key for staging?"),
    ]);
    const budgetChars = 1500;
    const withHistory = await createMemoryPromptProvider({
      rootDir,
      budgetChars,
      history: () => history,
    }).provide(promptContext(rootDir));
    const messages = withHistory?.messages as string[];
    expect(messages.reduce((sum, message) => sum + message.length, 0)).toBeLessThanOrEqual(budgetChars);
    const memory = messages[2] as string;
    expect(memory).toContain("Vault under ops/deploy");
    expect(memory).toContain("Fact number 199 ");
    // Oldest first: the relevant old entry comes before the newest ones.
    expect(memory.indexOf("Vault")).toBeLessThan(memory.indexOf("Fact number 199 "));
    // Words every entry shares ("the", "project") make nothing relevant: without a rare match, only the newest stay.
    await history.append(said("u3", "user", "Tell me about the project"));
    const generic = await createMemoryPromptProvider({
      rootDir,
      budgetChars,
      history: () => history,
      relevanceMessages: 1,
    }).provide(promptContext(rootDir));
    expect(generic?.messages?.[2]).not.toContain("Vault");
    // Without history the provider keeps only the newest.
    const plain = await createMemoryPromptProvider({ rootDir, budgetChars }).provide(promptContext(rootDir));
    expect(plain?.messages?.[2]).not.toContain("Vault");
    // A history that cannot be read fails open.
    const broken = await createMemoryPromptProvider({
      rootDir,
      budgetChars,
      history: () => ({ read: () => Promise.reject(new Error("disk gone")) }),
    }).provide(promptContext(rootDir));
    expect(broken?.messages?.[2]).toContain("Fact number 199 ");
  });

  it("keeps its section the same between turns until memory changes, so the cached prefix holds", async () => {
    const rootDir = await project(200, {
      5: "The deploy key of the staging cluster lives in Vault under ops/deploy.",
    });
    const history = createHistoryStore({ dir: join(rootDir, "history") });
    const provider = createMemoryPromptProvider({ rootDir, budgetChars: 1500, history: () => history });
    await history.append(said("u1", "user", "Where is the deploy key for staging?"));
    const first = await provider.provide(promptContext(rootDir));
    expect(first?.messages?.[2]).toContain("Vault under ops/deploy");
    // A later turn on another subject: the same section, byte for byte.
    await history.append([said("a1", "assistant", "In Vault."), said("u2", "user", "Thanks, lunch now")]);
    await history.append(said("u3", "user", "What about the weather in Berlin?"));
    expect(await provider.provide(promptContext(rootDir))).toEqual(first);
    // Memory changed: the section is fitted again, for the latest user messages.
    const files = contextMemoryFiles(rootDir, contextId);
    const entries = Array.from({ length: 201 }, (_, index) => ({
      id: `m-${index}`,
      kind: "fact" as const,
      text: `Fact number ${index} about the project, padded to a realistic length.`,
      sources: [`u${index}`],
      createdAt: "2025-01-01T00:00:00.000Z",
      via: "extract" as const,
    }));
    await writeFile(files.primary, renderPrimaryMarkdown({ entries, notes: [] }));
    const changed = await provider.provide(promptContext(rootDir));
    expect(changed?.messages?.[2]).toContain("Fact number 200 ");
    expect(changed?.messages?.[2]).not.toContain("Vault");
    expect(await provider.provide(promptContext(rootDir))).toEqual(changed);
  });

  it("adds nothing for a context without memory or profile", async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-provider-"));
    roots.push(rootDir);
    await expect(
      createMemoryPromptProvider({ rootDir }).provide(promptContext(rootDir)),
    ).resolves.toBeUndefined();
  });
});
