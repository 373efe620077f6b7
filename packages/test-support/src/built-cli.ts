import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type NodeRun, runNode } from "@downcity/testkit";

/** What one `downcity` run printed and how it ended. */
export type CliRun = NodeRun;

function workspaceRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("not inside the Downcity workspace (no pnpm-workspace.yaml above)");
    dir = parent;
  }
  return dir;
}

interface Workspace {
  name: string;
  dir: string;
  dependencies: string[];
  builds: boolean;
}

function workspaces(root: string): Map<string, Workspace> {
  const found = new Map<string, Workspace>();
  for (const group of ["packages", "apps"])
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const dir = join(root, group, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, "package.json"))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      found.set(manifest.name, {
        name: manifest.name,
        dir,
        dependencies: Object.entries<string>(manifest.dependencies ?? {})
          .filter(([, range]) => range.startsWith("workspace:"))
          .map(([name]) => name),
        builds: Boolean(manifest.scripts?.build),
      });
    }
  return found;
}

const notInputs = new Set(["dist", "node_modules", ".turbo", "bench", "test"]);
const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    if (notInputs.has(entry.name)) return latest;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(latest, newest(path));
    return /\.(test\.ts|md)$/.test(entry.name) ? latest : Math.max(latest, statSync(path).mtimeMs);
  }, 0);
const oldest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((earliest, entry) => {
    const path = join(dir, entry.name);
    return Math.min(earliest, entry.isDirectory() ? oldest(path) : statSync(path).mtimeMs);
  }, Number.POSITIVE_INFINITY);

/**
 * The path of the built `downcity` CLI, after rebuilding every package it runs (the adapters included)
 * whose dist is older than its sources: the daemon loads an adapter from its install, as users get it.
 */
export function ensureBuiltCli(): string {
  const root = workspaceRoot();
  const all = workspaces(root);
  const order: Workspace[] = [];
  const visit = (name: string) => {
    const workspace = all.get(name);
    if (!workspace || order.includes(workspace)) return;
    for (const dependency of workspace.dependencies) visit(dependency);
    order.push(workspace);
  };
  visit("@downcity/cli");
  const sourcesOf = (workspace: Workspace, seen = new Set<string>()): number => {
    seen.add(workspace.name);
    const dependencies = workspace.dependencies.flatMap((name) => {
      const dependency = all.get(name);
      return dependency && !seen.has(name) ? [sourcesOf(dependency, seen)] : [];
    });
    return Math.max(newest(workspace.dir), ...dependencies);
  };
  for (const workspace of order) {
    if (!workspace.builds) continue;
    const dist = join(workspace.dir, "dist");
    const missing = !existsSync(dist) || readdirSync(dist).length === 0;
    // The apps bundle their workspace dependencies (the daemon all of them): their dist is stale
    // when any of those sources changed, not only their own.
    const inputs = workspace.dir.startsWith(join(root, "apps"))
      ? sourcesOf(workspace)
      : newest(workspace.dir);
    if (!missing && oldest(dist) >= inputs) continue;
    if (process.env.CI && missing)
      throw new Error(`${workspace.name}: dist is missing; run pnpm build first.`);
    execFileSync("npm", ["run", "--silent", "build"], { cwd: workspace.dir, stdio: "pipe" });
  }
  return join(all.get("@downcity/cli")?.dir ?? join(root, "apps", "cli"), "dist", "main.js");
}

/** Runs the built CLI with `args` and collects its output. */
export function runCli(
  cliMain: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliRun> {
  return runNode(cliMain, args, options);
}
