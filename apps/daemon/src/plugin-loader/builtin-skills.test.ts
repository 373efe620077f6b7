import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModel } from "@downcity/core/scripted";
import { skillsPlugin } from "@downcity/skills";
import { describe, expect, it } from "vitest";
import { useBuiltinPluginBed } from "./builtin-plugin-test-bed.js";

async function writeSkill(dir: string, frontMatter: string, body: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n\n${body}\n`);
}

describe("built-in skills plug-in", () => {
  const bed = useBuiltinPluginBed("dc-skills-feature-");

  it("serves the skills service, gives runs skill_load and the pinned body, and enforces allowed-tools", async () => {
    const extra = await mkdtemp(join(tmpdir(), "dc-skills-extra-"));
    bed.cleanups.push(() => rm(extra, { recursive: true, force: true }));
    const { rootDir, config } = await bed.project({ skills: { roots: [extra] } });
    await writeSkill(
      join(rootDir, ".agents/skills/release"),
      "name: release\ndescription: Cut a release",
      "Bump, tag, push.",
    );
    await writeSkill(
      join(extra, "team/readonly"),
      "name: readonly\ndescription: Look, do not touch\nallowed-tools: []",
      "Read-only mode.",
    );
    await writeSkill(join(rootDir, "skills/broken"), "name: broken", "no description");

    let offered: string[][] = [];
    const model = createScriptedModel([
      (call) => {
        offered.push(call.tools);
        return { toolCalls: [{ toolName: "skill_load", input: { name: "release" } }] };
      },
      "loaded",
      (call) => {
        offered.push(call.tools);
        const system = call.messages.filter((message) => message.role === "system").map((m) => m.text);
        return { text: system.some((text) => text.includes("Read-only mode.")) ? "read-only" : "?" };
      },
    ]);
    const runtime = bed.runtime({ rootDir, model: model.model });
    const { registry } = await bed.setup({ rootDir, config, runtime, plugin: skillsPlugin });

    const listed = (await registry.invoke("skills", "list", {})) as {
      skills: Array<{ name: string; pinnedIn: string[] }>;
      problems: Array<{ path: string; reason: string }>;
    };
    expect(listed.skills.map((skill) => skill.name).sort()).toEqual(["readonly", "release"]);
    expect(listed.problems).toEqual([
      expect.objectContaining({
        path: join(rootDir, "skills/broken/SKILL.md"),
        reason: expect.stringMatching(/description/),
      }),
    ]);

    // The model pins a skill with skill_load; the pin lands in the context's messages/meta.json.
    await runtime.send({ contextId: "console:main", text: "release please" });
    expect(offered[0]).toEqual(expect.arrayContaining(["skill_load", "skill_unload"]));
    expect((await runtime.history("console:main").meta()).plugins).toEqual({
      skills: { pinned: ["release"] },
    });

    // The service pins another one (as `downcity skills load` does); its empty allowed-tools narrows the run.
    offered = [];
    await registry.invoke("skills", "unload", { contextId: "console:main", name: "release" });
    await registry.invoke("skills", "load", { contextId: "console:main", name: "readonly" });
    const reply = await runtime.send({ contextId: "console:main", text: "look around" });
    expect(reply.text).toBe("read-only");
    expect(offered[0]?.sort()).toEqual(["chat_load_history", "chat_send", "skill_load", "skill_unload"]);
    const after = (await registry.invoke("skills", "list", {})) as typeof listed;
    expect(after.skills.find((skill) => skill.name === "readonly")?.pinnedIn).toEqual(["console:main"]);
  });
});
