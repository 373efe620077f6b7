import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skillRoots } from "./skill-roots.js";

describe("skillRoots", () => {
  it("puts the project's roots first, then configured ones resolved against the project", () => {
    expect(skillRoots("/p", ["team-skills", "/opt/skills", "~/skills", "skills"])).toEqual([
      "/p/.agents/skills",
      "/p/skills",
      "/p/team-skills",
      "/opt/skills",
      join(homedir(), "skills"),
    ]);
  });
});
