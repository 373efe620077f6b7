import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoDir = join(cliDir, "..", "..");

interface WorkspacePackage {
  name: string;
  dir: string;
  dependencies: string[];
  /** Whether the package has a `build` script (its build tool is its own business: tsup, vite, ...). */
  builds: boolean;
}

/** Every workspace package by name (packages/* and apps/*). */
function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>();
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(repoDir, group), { withFileTypes: true })) {
      const dir = join(repoDir, group, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, "package.json"))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        scripts?: Record<string, string>;
      };
      const dependencies = Object.entries(manifest.dependencies ?? {})
        .filter(([, range]) => range.startsWith("workspace:"))
        .map(([name]) => name);
      found.set(manifest.name, {
        name: manifest.name,
        dir,
        dependencies,
        builds: Boolean(manifest.scripts?.build),
      });
    }
  }
  return found;
}

/** The CLI and every workspace package it runs, dependencies before their dependants. */
function buildOrder(all: Map<string, WorkspacePackage>): WorkspacePackage[] {
  const order: WorkspacePackage[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    const found = all.get(name);
    if (!found || seen.has(name)) return;
    seen.add(name);
    for (const dependency of found.dependencies) visit(dependency);
    order.push(found);
  };
  visit("@downcity/cli");
  return order;
}

// What never feeds a build: its own output, installed packages, tests, benchmarks and prose.
const notInputs = new Set(["dist", "node_modules", ".turbo", "bench", "test"]);

function newestInput(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (notInputs.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestInput(path));
    else if (!/\.(test\.ts|md)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function oldestOutput(dir: string): number {
  let oldest = Number.POSITIVE_INFINITY;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    oldest = Math.min(oldest, entry.isDirectory() ? oldestOutput(path) : statSync(path).mtimeMs);
  }
  return oldest;
}

const missingReason = "dist is missing";

/** Why a package's dist cannot be trusted, or undefined when it was built after its last source change. */
function staleReason(workspace: WorkspacePackage): string | undefined {
  const dist = join(workspace.dir, "dist");
  if (!existsSync(dist) || readdirSync(dist).length === 0) return missingReason;
  return oldestOutput(dist) < newestInput(workspace.dir) ? "dist is older than its sources" : undefined;
}

/**
 * The tests spawn the built CLI, which runs the built daemon and feature packages, exactly as an
 * installed `downcity` does. A stale dist would test yesterday's code, so every package in that
 * chain whose sources are newer than its dist is rebuilt here. In CI the build runs before the
 * tests, so a missing dist there means the pipeline is broken: the run fails instead of skipping.
 */
export default function setup(): void {
  for (const workspace of buildOrder(workspacePackages())) {
    if (!workspace.builds) continue;
    const reason = staleReason(workspace);
    if (!reason) continue;
    if (process.env.CI && reason === missingReason) {
      throw new Error(
        `${workspace.name}: ${reason}. The CLI tests run built packages: run \`pnpm build\` first (pnpm check does).`,
      );
    }
    process.stdout.write(`${workspace.name}: ${reason}; rebuilding it for the CLI tests\n`);
    try {
      execFileSync("npm", ["run", "--silent", "build"], { cwd: workspace.dir, stdio: "pipe" });
    } catch (error) {
      const failed = error as { stderr?: Buffer; stdout?: Buffer };
      const output = `${failed.stdout?.toString() ?? ""}${failed.stderr?.toString() ?? ""}`;
      throw new Error(`${workspace.name}: ${reason}, and rebuilding it failed:\n${output}`);
    }
  }
}
