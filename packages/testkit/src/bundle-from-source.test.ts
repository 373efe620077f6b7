import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleFromSource } from "./bundle-from-source.js";
import { useTempDir } from "./vitest.js";

describe("bundleFromSource", () => {
  const temp = useTempDir("downcity-testkit-bundle-");

  it("bundles a TypeScript child with what it imports, runnable by plain node from anywhere", async () => {
    writeFileSync(join(temp.path, "answer.ts"), "export const answer: number = 42;\n");
    // The require shim shows as 1 more: bundled CommonJS dependencies would find `require`.
    const child =
      'import { answer } from "./answer.js";\nconst shim = typeof require === "function" ? 1 : 0;\n';
    writeFileSync(join(temp.path, "child.ts"), `${child}process.stdout.write(String(answer + shim));\n`);
    const outDir = join(temp.path, "out");
    await bundleFromSource({
      entry: { child: join(temp.path, "child.ts") },
      outDir,
      inline: "all",
      requireShim: true,
      extension: ".mjs",
    });
    expect(existsSync(join(outDir, "child.mjs"))).toBe(true);
    expect(execFileSync(process.execPath, [join(outDir, "child.mjs")], { encoding: "utf8" })).toBe("43");
  });

  it("installs a bundle as a package a project loads by name", async () => {
    writeFileSync(join(temp.path, "plugin.ts"), 'export const name: string = "plugin";\n');
    const project = join(temp.path, "project");
    const outDir = join(project, "node_modules", "@example", "plugin");
    await bundleFromSource({
      entry: { index: join(temp.path, "plugin.ts") },
      outDir,
      inline: "none",
      packageName: "@example/plugin",
    });
    writeFileSync(
      join(project, "main.mjs"),
      'import { name } from "@example/plugin";\nprocess.stdout.write(name);\n',
    );
    expect(execFileSync(process.execPath, [join(project, "main.mjs")], { encoding: "utf8" })).toBe("plugin");
  });

  it("keeps an external import outside even when everything else goes inside", async () => {
    const project = join(temp.path, "external");
    mkdirSync(join(project, "node_modules", "kept"), { recursive: true });
    writeFileSync(
      join(project, "node_modules", "kept", "package.json"),
      '{"name":"kept","type":"module","exports":"./index.js"}',
    );
    writeFileSync(join(project, "node_modules", "kept", "index.js"), 'export const where = "outside";\n');
    writeFileSync(join(project, "child.ts"), 'import { where } from "kept";\nprocess.stdout.write(where);\n');
    await bundleFromSource({
      entry: { child: join(project, "child.ts") },
      outDir: project,
      inline: "all",
      external: ["kept"],
    });
    writeFileSync(
      join(project, "node_modules", "kept", "index.js"),
      'export const where = "changed after the build";\n',
    );
    expect(execFileSync(process.execPath, [join(project, "child.js")], { encoding: "utf8" })).toBe(
      "changed after the build",
    );
  });
});
