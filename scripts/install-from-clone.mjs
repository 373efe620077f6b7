// Installs the `downcity` command globally from this clone, the way scripts/pack-check.mjs proves it
// works: install the workspace, build every package, pack each published one into a tarball, serve
// the tarballs from a throwaway local registry (so the CLI's @downcity/* dependencies resolve from
// this clone, not from npm), and `npm install --global` the CLI's tarball.
// Usage (from the clone's root): node scripts/install-from-clone.mjs [--prefix <dir>] [--no-build]
// (--no-build: the workspace is already installed and built, e.g. after `pnpm build`.)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalRegistry, tarballManifest } from "./local-registry.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const prefix = args.includes("--prefix") ? args[args.indexOf("--prefix") + 1] : undefined;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

function step(label, command, commandArgs) {
  process.stdout.write(`\n==> ${label} (${elapsed()})\n`);
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`install-from-clone: "${label}" failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(1);
  }
}

if (!args.includes("--no-build")) {
  step("installing the workspace", "npx", ["-y", "pnpm@10", "install", "--frozen-lockfile"]);
  // hash-only: one line per package as it builds, so a cold build (minutes) shows progress.
  step("building every package", "npx", [
    "-y",
    "pnpm@10",
    "turbo",
    "run",
    "build",
    "--output-logs=hash-only",
  ]);
}
const tarballDir = mkdtempSync(join(tmpdir(), "downcity-install-"));
try {
  step("packing the published packages", "npx", [
    "-y",
    "pnpm@10",
    "-r",
    "pack",
    "--pack-destination",
    tarballDir,
  ]);
  const tarballs = readdirSync(tarballDir).map((file) => join(tarballDir, file));
  const cli = tarballs.find((tarball) => tarballManifest(tarball).name === "downcity");
  if (!cli) throw new Error("pnpm -r pack wrote no tarball for the downcity package");
  const registry = await startLocalRegistry(tarballs);
  try {
    process.stdout.write(`\n==> npm install --global downcity (${elapsed()})\n`);
    // Asynchronous on purpose: the local registry answers npm from this very process.
    const code = await new Promise((resolve, reject) => {
      const child = spawn(
        "npm",
        [
          "install",
          "--global",
          cli,
          `--@downcity:registry=${registry.url}`,
          ...(prefix ? ["--prefix", prefix] : []),
        ],
        { cwd: tarballDir, stdio: "inherit" },
      );
      child.on("error", reject);
      child.on("exit", (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw new Error(`npm install --global failed (exit ${code})`);
  } finally {
    await registry.close();
  }
  const bin = prefix ? join(prefix, "bin", "downcity") : "downcity";
  const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
  process.stdout.write(`\ndowncity ${version} is installed (${elapsed()}). Next: downcity init my-agent\n`);
} catch (error) {
  process.stderr.write(`install-from-clone: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(tarballDir, { recursive: true, force: true });
}
