import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contextMemoryFiles, profileFiles } from "./memory-files.js";
import { createMemoryPromptProvider } from "./memory-prompt-provider.js";
import { renderPrimaryMarkdown } from "./primary-markdown.js";

const contextId = "telegram:42";
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

const promptContext = (rootDir: string) => ({ rootDir, contextId, requestId: "r1", toolNames: [] });

async function project(entryCount: number) {
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
    text: `Fact number ${index} about the project, padded to a realistic length.`,
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

  it("adds nothing for a context without memory or profile", async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-provider-"));
    roots.push(rootDir);
    await expect(
      createMemoryPromptProvider({ rootDir }).provide(promptContext(rootDir)),
    ).resolves.toBeUndefined();
  });
});
