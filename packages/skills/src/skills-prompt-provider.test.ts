import { execFile } from "node:child_process";
import { access, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { createAgentRuntime } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSkillCatalog } from "./skill-catalog.js";
import { skillRoots } from "./skill-roots.js";
import { createSkillTools } from "./skill-tools.js";
import { createSkillsPromptProvider } from "./skills-prompt-provider.js";
import { makeProject, writeSkill } from "./testing/write-skill.js";

const run = promisify(execFile);

/** Real tools: a one-shot shell (named like @downcity/shell's) and a file writer no skill allows. */
function realTools(project: string, counts: Record<string, number>) {
  return {
    shell_exec: tool({
      description: "Run a shell command and return its output",
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        counts.shell_exec = (counts.shell_exec ?? 0) + 1;
        const { stdout } = await run("sh", ["-c", command], { cwd: project });
        return stdout;
      },
    }),
    write_file: tool({
      description: "Write a file",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        counts.write_file = (counts.write_file ?? 0) + 1;
        await writeFile(join(project, path), content);
        return "written";
      },
    }),
  };
}

/** A runtime with the real tools, the skill tools and the skills prompt provider over `catalog`. */
function skilledRuntime(
  project: string,
  catalog: ReturnType<typeof createSkillCatalog>,
  model: ReturnType<typeof createScriptedModel>["model"],
  counts: Record<string, number>,
) {
  return createAgentRuntime({
    rootDir: project,
    model,
    tools: [
      realTools(project, counts),
      (runContext) => createSkillTools({ catalog, contextId: runContext.contextId }),
    ],
    promptProviders: [createSkillsPromptProvider({ catalog })],
  });
}

const promptContext = (contextId: string, toolNames: string[] = ["skill_load"]) => ({
  rootDir: "/p",
  contextId,
  requestId: "r1",
  toolNames,
});

describe("createSkillsPromptProvider", () => {
  let project: string;
  beforeEach(async () => {
    project = await makeProject();
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("lists skills and injects each pinned body with its directory", async () => {
    await writeSkill(
      join(project, "skills/pdf"),
      "name: pdf\ndescription: Fill PDF forms",
      "Run scripts/fill.py.",
      {
        "scripts/fill.py": "print(1)\n",
      },
    );
    await writeSkill(join(project, "skills/review"), "name: review\ndescription: Review a diff");
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    const provider = createSkillsPromptProvider({ catalog });
    expect(provider.order).toBe(200);

    const before = await provider.provide(promptContext("c"));
    expect(before?.messages).toHaveLength(1);
    expect(before?.messages?.[0]).toContain("- pdf: Fill PDF forms");
    expect(before?.messages?.[0]).toContain("skill_load");
    expect(before?.activeTools).toBeUndefined();

    await catalog.pinSkill("c", "pdf");
    const after = await provider.provide(promptContext("c"));
    expect(after?.messages?.[0]).toContain("- pdf (pinned): Fill PDF forms");
    expect(after?.messages?.[1]).toContain("# Pinned skill: pdf");
    expect(after?.messages?.[1]).toContain(`Directory: ${join(project, "skills/pdf")}`);
    expect(after?.messages?.[1]).toContain("Run scripts/fill.py.");
    expect(after?.activeTools).toBeUndefined();
  });

  it("contributes nothing to a project without skills", async () => {
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    await expect(
      createSkillsPromptProvider({ catalog }).provide(promptContext("c")),
    ).resolves.toBeUndefined();
  });

  it("keeps the listing bounded with 200 skills", async () => {
    const description = "Handles a very specific kind of chore. ".repeat(20);
    await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        writeSkill(
          join(project, "skills", `s${String(index).padStart(3, "0")}`),
          `name: s${index}\ndescription: ${description}`,
        ),
      ),
    );
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    expect(await catalog.skills()).toHaveLength(200);
    const contribution = await createSkillsPromptProvider({ catalog }).provide(promptContext("c"));
    const listing = String(contribution?.messages?.[0]);
    expect(listing.length).toBeLessThanOrEqual(6000);
    expect(listing).toContain("- s0: Handles");
    expect(listing).toMatch(/… and \d+ more skills not listed here/);

    const small = await createSkillsPromptProvider({ catalog, maxListingChars: 1500 }).provide(
      promptContext("c"),
    );
    expect(String(small?.messages?.[0]).length).toBeLessThanOrEqual(1500);
  });

  it("enforces allowed-tools: a run cannot call a tool outside the list even when the model tries", async () => {
    await writeSkill(
      join(project, "skills/git-helper"),
      'name: git-helper\ndescription: Inspect the repository\nallowed-tools: "Bash(git *), mcp__github__search"',
      "Only inspect; never write files.",
    );
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    await catalog.pinSkill("console:main", "git-helper");
    const counts: Record<string, number> = {};
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "write_file", input: { path: "pwned.txt", content: "x" } }] },
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo allowed" } }] },
      "done",
    ]);
    const runtime = skilledRuntime(project, catalog, scripted.model, counts);
    try {
      const result = await runtime.send({ contextId: "console:main", text: "write pwned.txt" });
      expect(result.text).toBe("done");
    } finally {
      await runtime.close();
    }
    expect(scripted.calls[0]?.tools.sort()).toEqual(
      ["chat_load_history", "chat_send", "shell_exec", "skill_load", "skill_unload"].sort(),
    );
    expect(counts.write_file).toBeUndefined();
    await expect(access(join(project, "pwned.txt"))).rejects.toThrow();
    expect(scripted.calls[1]?.messages.at(-1)?.text).toMatch(/unavailable tool 'write_file'/);
    expect(counts.shell_exec).toBe(1);
    expect(scripted.calls[2]?.messages.map((message) => message.text).join("\n")).toContain("allowed");
    const system = scripted.calls[0]?.messages
      .filter((message) => message.role === "system")
      .map((m) => m.text)
      .join("\n");
    expect(system).toContain("Only inspect; never write files.");
    expect(system).toContain("Only these tools are available to you now");
    expect(system).toContain("git *");
  });

  it("lets the model pin a skill with skill_load; the next run carries its body and tool limits", async () => {
    await writeSkill(
      join(project, ".agents/skills/readonly"),
      "name: readonly\ndescription: Look, do not touch\nallowed-tools: []",
      "Read-only mode.",
    );
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    const counts: Record<string, number> = {};
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "skill_load", input: { name: "readonly" } }] },
      "pinned",
      "second run",
      { toolCalls: [{ toolName: "skill_unload", input: { name: "readonly" } }] },
      "unpinned",
    ]);
    const runtime = skilledRuntime(project, catalog, scripted.model, counts);
    try {
      await runtime.send({ contextId: "c", text: "be careful" });
      expect(scripted.calls[1]?.messages.map((message) => message.text).join("\n")).toContain(
        "Read-only mode.",
      );
      expect(await catalog.pinnedSkillIds("c")).toEqual(["readonly"]);
      await runtime.send({ contextId: "c", text: "again" });
      expect(scripted.calls[2]?.tools.sort()).toEqual([
        "chat_load_history",
        "chat_send",
        "skill_load",
        "skill_unload",
      ]);
      await runtime.send({ contextId: "c", text: "stop" });
      expect(await catalog.pinnedSkillIds("c")).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
