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
  "@downcity/testkit": [],
  "@downcity/test-support": ["@downcity/core", "@downcity/testkit"],
};
// Private apps compiled into a published package's bundle: declared as devDependencies there.
const bundledApps: Record<string, string[]> = {
  downcity: ["@downcity/cli", "@downcity/daemon"],
};
// Private packages for tests only: a devDependency of the packages whose tests (*.test.ts, test/) use them,
// never a runtime dependency, so nothing published can reach them.
const testOnlyPackages = ["@downcity/test-support", "@downcity/testkit"];
// The test kit sits at the bottom of the graph: it depends on nothing of ours (only vitest, as an optional
// peer), so every package, core included, may take it.
const bottomTestKit = "@downcity/testkit";
const forbiddenThirdParty: Record<string, string[]> = {
  "@downcity/core": ["fastify", "node-pty", "@modelcontextprotocol/sdk", "pino"],
  "@downcity/shell": ["fastify"],
};

interface Workspace {
  dir: string;
  name: string;
  deps: string[];
  devDeps: string[];
  /** Whether `src/test/` is a published entry (`./test` in exports), so test-only packages stay out of it. */
  publishesTest: boolean;
  isApp: boolean;
}

function workspaces(): Workspace[] {
  const found: Workspace[] = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
      const devDeps = Object.keys(manifest.devDependencies ?? {});
      const publishesTest = Boolean(manifest.exports?.["./test"]);
      found.push({ dir, name: manifest.name, deps, devDeps, publishesTest, isApp: group === "apps" });
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

  it("keeps the test-only packages private and out of every runtime dependency list", () => {
    const problems: string[] = [];
    for (const name of testOnlyPackages) {
      const own = all.find((workspace) => workspace.name === name);
      const manifest = own && JSON.parse(readFileSync(join(own.dir, "package.json"), "utf8"));
      if (!manifest?.private) problems.push(`${name} is not a private workspace package`);
    }
    for (const workspace of all) {
      // One test-only package may build on another (the daemon harness on the kit); nothing else may.
      if (testOnlyPackages.includes(workspace.name)) continue;
      for (const dep of workspace.deps)
        if (testOnlyPackages.includes(dep)) problems.push(`${workspace.name} depends on ${dep} at run time`);
    }
    expect(problems).toEqual([]);
  });

  it("keeps the test kit at the bottom: it depends on nothing of ours, and no test-only source leaks it", () => {
    const kit = all.find((workspace) => workspace.name === bottomTestKit);
    expect(kit?.deps.filter((dep) => dep.startsWith("@downcity/"))).toEqual([]);
    const manifest = kit && JSON.parse(readFileSync(join(kit.dir, "package.json"), "utf8"));
    expect(Object.keys(manifest?.dependencies ?? {})).toEqual([]);
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
          if (testOnlyPackages.includes(name) && !workspace.deps.includes(name)) {
            // Test helpers inside src (a testing/ or test/ folder) may use a test-only devDependency,
            // unless that folder is published (core's ./test entry).
            const helper = /\/src\/(test|testing)\//.test(file) && !workspace.publishesTest;
            if (!helper) problems.push(`${where} imports test-only ${name} outside a test helper`);
            if (!workspace.devDeps.includes(name))
              problems.push(`${where} imports ${name} without declaring it`);
            continue;
          }
          if (allowed && ours(name) && !allowed.includes(name)) problems.push(`${where} imports ${name}`);
          if (forbiddenThirdParty[workspace.name]?.includes(name)) problems.push(`${where} imports ${name}`);
          const bundled = bundledApps[workspace.name]?.includes(name) ?? false;
          if (ours(name) && name !== workspace.name && !workspace.deps.includes(name) && !bundled)
            problems.push(`${where} imports ${name} without declaring it`);
          if (!workspace.isApp && featurePackages.includes(name) && name !== workspace.name)
            problems.push(`${where} imports feature package ${name}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("one home for each concern", () => {
  const all = workspaces();
  const files = all.flatMap((workspace) => sourceFiles(join(workspace.dir, "src")));

  it('spells out the ".downcity" folder only in core\'s paths module', () => {
    // The shell imports nothing of ours, and the user-level home (~/.downcity) is another folder.
    const allowed = ["packages/core/src/paths/downcity-paths.ts", "apps/daemon/src/token/downcity-home.ts"];
    const offenders = files
      .map((file) => relative(root, file))
      .filter((file) => !allowed.includes(file) && !file.startsWith("packages/shell/"))
      .filter((file) => /["']\.downcity["']/.test(readFileSync(join(root, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("keeps core's history internals private to history/", () => {
    // history/ holds the message format (messages, their attachments and stored parts); the file
    // history itself lives in store/file/.
    const historyApi = ["history-message.js", "message-attachment.js", "incoming-parts.js"];
    const offenders: string[] = [];
    for (const file of sourceFiles(join(root, "packages", "core", "src"))) {
      if (file.includes("/history/")) continue;
      for (const specifier of importsOf(file)) {
        const match = /\/history\/([^/]+)$/.exec(specifier);
        if (match && !historyApi.includes(match[1] as string))
          offenders.push(`${relative(root, file)} -> ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("has no source file over 400 lines", () => {
    const long = files
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter((entry) => entry.lines > 400);
    expect(long).toEqual([]);
  });
});
