import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  contextDir,
  createHistoryStore,
  DowncityError,
  type HistoryMessage,
  type Logger,
} from "@downcity/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillCatalog } from "./skill-catalog.js";
import { skillRoots } from "./skill-roots.js";
import { makeProject, writeSkill } from "./testing/write-skill.js";

function recordingLogger(): Logger & { lines: Array<{ level: string; fields: object; message?: string }> } {
  const lines: Array<{ level: string; fields: object; message?: string }> = [];
  const log = (level: string) => (fields: object, message?: string) => {
    lines.push({ level, fields, ...(message === undefined ? {} : { message }) });
  };
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

const metaPath = (project: string, contextId: string) =>
  join(contextDir(project, contextId), "messages/meta.json");

const userMessage = (id: string): HistoryMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
  metadata: { createdAt: new Date().toISOString() },
});

describe("createSkillCatalog", () => {
  let project: string;
  beforeEach(async () => {
    project = await makeProject();
    await writeSkill(join(project, "skills/pdf"), "name: pdf\ndescription: Fill PDF forms", "# PDF steps");
    await writeSkill(join(project, ".agents/skills/review"), "name: review\ndescription: Review code");
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("pins and unpins in the context's messages/meta.json", async () => {
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    expect((await catalog.skills()).map((skill) => skill.name)).toEqual(["review", "pdf"]);

    await expect(catalog.pinSkill("tg:1", "pdf")).resolves.toMatchObject({
      changed: true,
      pinnedSkillIds: ["pdf"],
    });
    await expect(catalog.pinSkill("tg:1", "pdf")).resolves.toMatchObject({
      changed: false,
      pinnedSkillIds: ["pdf"],
    });
    await catalog.pinSkill("tg:1", "review");
    const meta = JSON.parse(await readFile(metaPath(project, "tg:1"), "utf8"));
    expect(meta.plugins.skills.pinned).toEqual(["pdf", "review"]);

    await expect(catalog.unpinSkill("tg:1", "pdf")).resolves.toMatchObject({
      changed: true,
      pinnedSkillIds: ["review"],
    });
    await expect(catalog.unpinSkill("tg:1", "never-pinned")).resolves.toMatchObject({ changed: false });
    expect(await catalog.pinnedSkillIds("tg:1")).toEqual(["review"]);
    expect(await catalog.pinnedContexts()).toEqual(new Map([["tg:1", ["review"]]]));
  });

  it("refuses to pin an unknown skill and names the available ones", async () => {
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    const error = await catalog.pinSkill("c", "nope").catch((caught: unknown) => caught);
    expect(DowncityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "name" });
    expect((error as Error).message).toContain("review, pdf");
  });

  it("finds a skill added after the first scan when asked for it by name", async () => {
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project) });
    await catalog.skills();
    await writeSkill(join(project, "skills/late"), "name: late\ndescription: Added later");
    await expect(catalog.pinSkill("c", "late")).resolves.toMatchObject({ changed: true });
  });

  it("drops (and logs) a pin whose skill was deleted or broken while pinned", async () => {
    const logger = recordingLogger();
    const catalog = createSkillCatalog({ rootDir: project, roots: skillRoots(project), logger });
    await catalog.pinSkill("c", "pdf");
    await catalog.pinSkill("c", "review");
    expect((await catalog.loadPinned("c")).skills.map((skill) => skill.name)).toEqual(["pdf", "review"]);

    await rm(join(project, "skills/pdf"), { recursive: true });
    await writeSkill(
      join(project, ".agents/skills/review"),
      "name: review\ndescription: Review code",
      "# new body",
    );
    const loaded = await catalog.loadPinned("c");
    expect(loaded.skills.map((skill) => skill.name)).toEqual(["review"]);
    expect(loaded.skills[0]?.body).toContain("# new body");
    expect(loaded.dropped).toEqual([{ name: "pdf", reason: expect.stringContaining("SKILL.md vanished") }]);
    expect(await catalog.pinnedSkillIds("c")).toEqual(["review"]);
    expect(logger.lines).toContainEqual({
      level: "warn",
      fields: expect.objectContaining({ contextId: "c", skill: "pdf" }),
      message: "dropped a pinned skill",
    });

    await writeSkill(join(project, ".agents/skills/review"), "name: review");
    expect((await catalog.loadPinned("c")).dropped).toEqual([
      { name: "review", reason: expect.stringContaining("no longer valid") },
    ]);
    expect(await catalog.pinnedSkillIds("c")).toEqual([]);
  });

  it("uses the injected history function, so custom history folders hold the pins", async () => {
    const dir = join(project, "custom-history");
    const store = createHistoryStore({ dir });
    const catalog = createSkillCatalog({
      rootDir: project,
      roots: skillRoots(project),
      history: () => store,
    });
    await catalog.pinSkill("task-run:t:1", "pdf");
    expect(JSON.parse(await readFile(join(dir, "meta.json"), "utf8")).plugins.skills.pinned).toEqual(["pdf"]);
  });

  it("never loses a pin or unpin when they race with appends and compaction on other store instances", async () => {
    const names = Array.from({ length: 16 }, (_, index) => `skill-${index}`);
    for (const name of names)
      await writeSkill(join(project, "skills", name), `name: ${name}\ndescription: d`);
    const roots = skillRoots(project);
    // Two catalogs with their own stores: they coordinate only through the history file lock.
    const left = createSkillCatalog({ rootDir: project, roots });
    const right = createSkillCatalog({ rootDir: project, roots });
    const writer = createHistoryStore({ dir: join(contextDir(project, "c"), "messages") });
    await writer.append(Array.from({ length: 30 }, (_, index) => userMessage(`seed-${index}`)));

    const appends = Array.from({ length: 40 }, (_, index) => writer.append(userMessage(`m-${index}`)));
    const pins = names.map((name, index) => (index % 2 ? left : right).pinSkill("c", name));
    const compaction = writer.compact({ keepLast: 10, summarize: async () => "summary" });
    await Promise.all([...appends, ...pins, compaction]);
    expect(new Set(await left.pinnedSkillIds("c"))).toEqual(new Set(names));

    const removed = names.filter((_, index) => index % 3 === 0);
    const more = Array.from({ length: 20 }, (_, index) => writer.append(userMessage(`n-${index}`)));
    const unpins = removed.map((name, index) => (index % 2 ? left : right).unpinSkill("c", name));
    await Promise.all([...more, ...unpins]);

    const meta = JSON.parse(await readFile(metaPath(project, "c"), "utf8"));
    expect(new Set(meta.plugins.skills.pinned)).toEqual(
      new Set(names.filter((name) => !removed.includes(name))),
    );
    expect(meta.compaction).toMatchObject({ keepLast: 10 });
    const ids = (await writer.read()).map((message) => message.id);
    for (let index = 0; index < 20; index++) expect(ids).toContain(`n-${index}`);
  });
});

describe("createSkillCatalog freshness", () => {
  it("searches the roots again once the known skills are older than maxAgeMs", async () => {
    const project = await makeProject();
    try {
      let clock = 0;
      const catalog = createSkillCatalog({
        rootDir: project,
        roots: skillRoots(project),
        maxAgeMs: 1000,
        now: () => clock,
      });
      expect(await catalog.skills()).toEqual([]);
      await writeSkill(join(project, "skills/new"), "name: new\ndescription: d");
      expect(await catalog.skills()).toEqual([]);
      clock = 1000;
      expect((await catalog.skills()).map((skill) => skill.name)).toEqual(["new"]);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
