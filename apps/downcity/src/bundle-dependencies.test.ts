import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The bundle leaves every package import to the install: each must be a declared dependency, or the
// installed `downcity` fails at run time with ERR_MODULE_NOT_FOUND on a code path tests may not reach.
const packageDir = join(import.meta.dirname, "..");
const workspaceDir = join(packageDir, "..", "..");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

// First-party libraries a project installs itself (the daemon resolves them from the project first),
// each with the reason it is not shipped: the install must stay within its 80 MiB budget.
const installedByTheProject: Record<string, string> = {
  "@downcity/adapters-feishu": "@larksuiteoapi/node-sdk and its dependencies add about 38 MiB",
};

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

function bundleImports(): Set<string> {
  const dist = join(packageDir, "dist");
  const found = new Set<string>();
  for (const file of readdirSync(dist).filter((name) => name.endsWith(".js"))) {
    const text = readFileSync(join(dist, file), "utf8");
    const statements =
      /^\s*(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)"|^\s*import\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm;
    for (const match of text.matchAll(statements)) {
      const specifier = (match[1] ?? match[2] ?? match[3]) as string;
      if (!specifier.startsWith(".")) found.add(specifier);
    }
  }
  return found;
}

describe("the downcity bundle", () => {
  it("imports only Node built-ins and declared dependencies", () => {
    const imports = bundleImports();
    expect(imports.size).toBeGreaterThan(5);
    const builtins = new Set(builtinModules);
    const undeclared = [...imports]
      .filter((specifier) => !specifier.startsWith("node:") && !builtins.has(specifier))
      .map(packageOf)
      .filter((name) => !(name in manifest.dependencies));
    expect(undeclared).toEqual([]);
  });

  it("inlines the CLI and the daemon instead of importing them", () => {
    const imports = [...bundleImports()].map(packageOf);
    expect(imports).not.toContain("@downcity/cli");
    expect(imports).not.toContain("@downcity/daemon");
  });

  it("depends on every first-party library, so plug-ins resolve from the install", () => {
    const libraries = readdirSync(join(workspaceDir, "packages"))
      .map((entry) => JSON.parse(readFileSync(join(workspaceDir, "packages", entry, "package.json"), "utf8")))
      .filter((library: { private?: boolean }) => !library.private)
      .map((library: { name: string }) => library.name);
    expect(libraries.length).toBeGreaterThan(0);
    const missing = libraries.filter(
      (name) => !(name in manifest.dependencies) && !(name in installedByTheProject),
    );
    expect(missing).toEqual([]);
    for (const name of Object.keys(installedByTheProject))
      expect(manifest.dependencies).not.toHaveProperty([name]);
  });
});
