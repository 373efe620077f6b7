import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// SPEC.md section 1: which workspace packages (and heavy third parties) each package may import.
const root = join(import.meta.dirname, "..");
const featurePackages = ["@downcity/mcp", "@downcity/skills", "@downcity/memory", "@downcity/tasks"];
const allowedOurs: Record<string, string[]> = {
  "@downcity/core": [],
  "@downcity/shell": [],
  "@downcity/mcp": ["@downcity/core"],
  "@downcity/skills": ["@downcity/core", "@downcity/shell"],
  "@downcity/memory": ["@downcity/core"],
  "@downcity/tasks": ["@downcity/core"],
};
const forbiddenThirdParty: Record<string, string[]> = {
  "@downcity/core": ["fastify", "node-pty", "@modelcontextprotocol/sdk", "pino"],
  "@downcity/shell": ["fastify"],
};

interface Workspace {
  dir: string;
  name: string;
  deps: string[];
  isApp: boolean;
}

function workspaces(): Workspace[] {
  const found: Workspace[] = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
      found.push({ dir, name: manifest.name, deps, isApp: group === "apps" });
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mts|tsx)$/.test(entry) && !/\.test\.ts$/.test(entry)) files.push(path);
  }
  return files;
}

const importPattern = /(?:from|import)\s*\(?\s*["']([^"']+)["']/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(importPattern)].map((match) => match[1] as string);
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

describe("dependency direction (SPEC.md section 1)", () => {
  const all = workspaces();

  it("finds every package", () => {
    expect(all.map((w) => w.name)).toContain("@downcity/core");
    expect(all.map((w) => w.name)).toContain("@downcity/shell");
  });

  for (const workspace of all) {
    it(`${workspace.name} respects its allowed imports`, () => {
      const problems: string[] = [];
      const ours = (name: string) => name.startsWith("@downcity/");
      const isAdapter = workspace.name.startsWith("@downcity/adapters-");
      const allowed = workspace.isApp
        ? null
        : isAdapter
          ? ["@downcity/core"]
          : (allowedOurs[workspace.name] ?? ["@downcity/core"]);
      for (const dep of workspace.deps) {
        if (allowed && ours(dep) && !allowed.includes(dep)) problems.push(`package.json depends on ${dep}`);
        if (forbiddenThirdParty[workspace.name]?.includes(dep))
          problems.push(`package.json depends on ${dep}`);
      }
      const srcDir = join(workspace.dir, "src");
      for (const file of sourceFiles(srcDir)) {
        for (const specifier of importsOf(file)) {
          const where = relative(root, file);
          if (/^(\.\.\/){3,}/.test(specifier)) problems.push(`${where} deep relative import ${specifier}`);
          if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
          const name = packageOf(specifier);
          if (allowed && ours(name) && !allowed.includes(name)) problems.push(`${where} imports ${name}`);
          if (forbiddenThirdParty[workspace.name]?.includes(name)) problems.push(`${where} imports ${name}`);
          if (ours(name) && name !== workspace.name && !workspace.deps.includes(name))
            problems.push(`${where} imports ${name} without declaring it`);
          if (!workspace.isApp && featurePackages.includes(name) && name !== workspace.name)
            problems.push(`${where} imports feature package ${name}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
