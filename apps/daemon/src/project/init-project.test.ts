import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { initProject } from "./init-project.js";

describe("initProject", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("writes a loadable project, is idempotent and never overwrites user files", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-"));
    await writeFile(join(dir, ".gitignore"), "node_modules");
    const first = await initProject(dir);
    expect(first.created.sort()).toEqual(
      [".downcity/schema/downcity.schema.json", ".gitignore", "PROFILE.md", "downcity.json"].sort(),
    );
    const { config } = await loadConfig(dir, { env: {} });
    expect(config.$schema).toBe("./.downcity/schema/downcity.schema.json");
    await writeFile(join(dir, "PROFILE.md"), "my own profile");
    const second = await initProject(dir);
    expect(second.created).toEqual([]);
    expect(second.skipped).toHaveLength(4);
    expect(await readFile(join(dir, "PROFILE.md"), "utf8")).toBe("my own profile");
    const gitignore = await readFile(join(dir, ".gitignore"), "utf8");
    expect(gitignore.startsWith("node_modules\n")).toBe(true);
    expect(gitignore.match(/\.downcity\/\*/g)).toHaveLength(1);
  });
});
