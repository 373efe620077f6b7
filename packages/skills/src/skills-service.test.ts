import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createServiceRegistry } from "@downcity/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillCatalog } from "./skill-catalog.js";
import { skillRoots } from "./skill-roots.js";
import { createSkillsService } from "./skills-service.js";
import { makeProject, writeSkill } from "./testing/write-skill.js";

describe("createSkillsService", () => {
  let project: string;
  beforeEach(async () => {
    project = await makeProject();
    await writeSkill(
      join(project, "skills/pdf"),
      "name: pdf\ndescription: Fill PDF forms\nallowed-tools: Read",
    );
    await writeSkill(join(project, "skills/broken"), "name: broken");
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("lists, loads, unloads and rescans through the service registry", async () => {
    const registry = createServiceRegistry();
    registry.register(
      createSkillsService({ catalog: createSkillCatalog({ rootDir: project, roots: skillRoots(project) }) }),
    );
    await registry.startAll();
    expect(registry.list()[0]?.actions.map((action) => action.name)).toEqual([
      "list",
      "load",
      "unload",
      "rescan",
    ]);

    await expect(
      registry.invoke("skills", "load", { contextId: "tg:42", name: "pdf" }),
    ).resolves.toMatchObject({
      changed: true,
      pinnedSkillIds: ["pdf"],
    });
    await registry.invoke("skills", "load", { name: "pdf" }, { contextId: "console:main" });
    const listed = (await registry.invoke("skills", "list", {})) as {
      skills: Array<{ name: string; path: string; allowedTools?: string[]; pinnedIn: string[] }>;
      problems: Array<{ path: string; reason: string }>;
    };
    expect(listed.skills).toEqual([
      expect.objectContaining({
        name: "pdf",
        path: join(project, "skills/pdf/SKILL.md"),
        allowedTools: ["Read"],
        pinnedIn: ["console:main", "tg:42"],
      }),
    ]);
    expect(listed.problems).toEqual([
      { path: join(project, "skills/broken/SKILL.md"), reason: expect.stringContaining("description") },
    ]);

    await registry.invoke("skills", "unload", { contextId: "tg:42", name: "pdf" });
    await writeSkill(join(project, "skills/broken"), "name: broken\ndescription: fixed now");
    await expect(registry.invoke("skills", "rescan", {})).resolves.toEqual({
      skills: ["broken", "pdf"],
      problems: [],
    });
    const again = (await registry.invoke("skills", "list", {})) as {
      skills: Array<{ name: string; pinnedIn: string[] }>;
    };
    expect(again.skills.find((skill) => skill.name === "pdf")?.pinnedIn).toEqual(["console:main"]);
  });

  it("names the missing field when no context is given", async () => {
    const registry = createServiceRegistry();
    registry.register(
      createSkillsService({ catalog: createSkillCatalog({ rootDir: project, roots: skillRoots(project) }) }),
    );
    await expect(registry.invoke("skills", "load", { name: "pdf" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "contextId",
    });
    await expect(registry.invoke("skills", "load", {})).rejects.toMatchObject({ field: "payload.name" });
    await expect(registry.invoke("skills", "load", { contextId: "c", name: "ghost" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
