import { describe, expect, it } from "vitest";
import { parseSkillFile } from "./parse-skill-file.js";

describe("parseSkillFile", () => {
  it("reads name, description, allowed-tools, other keys and the body", () => {
    const result = parseSkillFile(
      "---\r\nname: pdf\r\ndescription: Fill PDF forms\r\nallowed-tools: [Bash(python *), Read]\r\nlicense: MIT\r\n---\r\n# PDF\r\nSteps.\r\n",
    );
    expect(result).toMatchObject({
      ok: true,
      skill: {
        name: "pdf",
        description: "Fill PDF forms",
        allowedTools: ["Bash(python *)", "Read"],
        frontMatter: { license: "MIT" },
      },
    });
    if (result.ok) expect(result.skill.body).toContain("# PDF");
  });

  it("closes the front matter only at a line that is exactly ---", () => {
    const result = parseSkillFile("---\nname: a\ndescription: before --- after ---\n---\nbody");
    expect(result).toMatchObject({ ok: true, skill: { description: "before --- after ---", body: "body" } });
    expect(parseSkillFile("---\n---\nbody")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("mapping"),
    });
  });

  it("leaves allowedTools undefined when not declared", () => {
    const result = parseSkillFile("---\nname: a\ndescription: b\n---\nbody");
    expect(result.ok && result.skill.allowedTools).toBeUndefined();
  });

  it("explains what is wrong", () => {
    expect(parseSkillFile("# no front matter")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("front matter"),
    });
    expect(parseSkillFile("---\nname: [unclosed\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("malformed YAML"),
    });
    expect(parseSkillFile("---\nname: a\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("description"),
    });
    expect(parseSkillFile("---\n- a\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("mapping"),
    });
    expect(parseSkillFile("---\nname: a\ndescription: b\nallowed-tools: 3\n---\n")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("allowed-tools"),
    });
  });
});
