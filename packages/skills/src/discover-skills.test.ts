import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSkills } from "./discover-skills.js";
import { makeProject, writeSkill } from "./testing/write-skill.js";

describe("discoverSkills", () => {
  let project: string;
  beforeEach(async () => {
    project = await makeProject();
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("finds skills at any depth across layouts and keeps their resources out of the search", async () => {
    const agents = join(project, ".agents/skills");
    await writeSkill(join(agents, "simple"), "name: simple\ndescription: A flat skill");
    await writeSkill(
      join(agents, "team/docs/pdf"),
      "name: pdf\ndescription: Fill PDF forms\nlicense: MIT",
      "# PDF",
      {
        "scripts/fill.py": "print('fill')\n",
        "references/forms.md": "# forms\n",
        // A SKILL.md inside a skill's resources is a template, not another skill.
        "templates/SKILL.md": "---\nname: template\ndescription: not a skill\n---\n",
      },
    );
    await writeSkill(
      join(project, "skills/deploy"),
      'name: deploy\ndescription: Ship it\nallowed-tools: "Bash(git *), Read"',
      "",
      {
        "scripts/deploy.sh": "#!/bin/sh\n",
      },
    );

    const { skills, problems } = await discoverSkills({ roots: [agents, join(project, "skills")] });
    expect(problems).toEqual([]);
    expect(skills.map((skill) => skill.name)).toEqual(["simple", "pdf", "deploy"]);
    const pdf = skills.find((skill) => skill.name === "pdf")!;
    expect(pdf.dir).toBe(join(agents, "team/docs/pdf"));
    expect(pdf.path).toBe(join(agents, "team/docs/pdf/SKILL.md"));
    expect(pdf.allowedTools).toBeUndefined();
    expect(pdf.frontMatter.license).toBe("MIT");
    expect(pdf.body).toContain("# PDF");
    expect(skills.find((skill) => skill.name === "deploy")?.allowedTools).toEqual(["Bash(git *)", "Read"]);
  });

  it("reports malformed front matter and a missing description, and keeps going", async () => {
    const root = join(project, "skills");
    await writeSkill(join(root, "good"), "name: good\ndescription: fine");
    await writeSkill(join(root, "broken-yaml"), "name: [oops\ndescription: x");
    await writeSkill(join(root, "no-description"), "name: lonely");
    await mkdir(join(root, "plain"), { recursive: true });
    await writeFile(join(root, "plain/SKILL.md"), "just markdown\n");

    const { skills, problems } = await discoverSkills({ roots: [root] });
    expect(skills.map((skill) => skill.name)).toEqual(["good"]);
    const reasons = Object.fromEntries(problems.map((problem) => [problem.path, problem.reason]));
    expect(reasons[join(root, "broken-yaml/SKILL.md")]).toMatch(/malformed YAML/);
    expect(reasons[join(root, "no-description/SKILL.md")]).toMatch(/description/);
    expect(reasons[join(root, "plain/SKILL.md")]).toMatch(/front matter/);
  });

  it("lets the first root win on duplicate names and reports the loser", async () => {
    const first = join(project, ".agents/skills");
    const second = join(project, "skills");
    await writeSkill(join(first, "review"), "name: review\ndescription: first");
    await writeSkill(join(second, "review"), "name: review\ndescription: second");
    await writeSkill(join(second, "a/review-again"), "name: review\ndescription: third");

    const { skills, problems } = await discoverSkills({ roots: [first, second] });
    expect(skills).toHaveLength(1);
    expect(skills[0]?.description).toBe("first");
    expect(problems).toHaveLength(2);
    for (const problem of problems)
      expect(problem.reason).toContain(`${join(first, "review/SKILL.md")} wins`);
  });

  it("skips missing roots, reports a root that is a file, and survives symlink loops", async () => {
    const root = join(project, "skills");
    await writeSkill(join(root, "one"), "name: one\ndescription: d");
    await symlink(root, join(root, "loop"));
    await writeFile(join(project, "file-root"), "x");

    const { skills, problems } = await discoverSkills({
      roots: [join(project, "missing"), join(project, "file-root"), root],
    });
    expect(skills.map((skill) => skill.name)).toEqual(["one"]);
    expect(problems).toEqual([{ path: join(project, "file-root"), reason: "skill root is not a folder" }]);
  });
});
