// Proves the release flow on a copy of the workspace manifests: `changeset version` consumes the
// pending changesets and moves every package of the fixed group to one new version, with changelogs.
// Usage: node scripts/release-check.mjs
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "downcity-release-check-"));
const manifests = [];
for (const group of ["packages", "apps"]) {
  for (const entry of readdirSync(join(root, group))) {
    if (!existsSync(join(root, group, entry, "package.json"))) continue;
    mkdirSync(join(work, group, entry), { recursive: true });
    cpSync(join(root, group, entry, "package.json"), join(work, group, entry, "package.json"));
    manifests.push(join(group, entry));
  }
}
for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset"]) {
  cpSync(join(root, file), join(work, file), { recursive: true });
}
const read = (dir) => JSON.parse(readFileSync(join(work, dir, "package.json"), "utf8"));
const before = new Map(manifests.map((dir) => [dir, read(dir).version]));
const pending = readdirSync(join(work, ".changeset")).filter(
  (name) => name.endsWith(".md") && name !== "README.md",
);

const result = spawnSync(
  process.execPath,
  [join(root, "node_modules", "@changesets", "cli", "bin.js"), "version"],
  {
    cwd: work,
    encoding: "utf8",
  },
);
const problems = [];
if (result.status !== 0) problems.push(`changeset version failed:\n${result.stdout}${result.stderr}`);
const after = new Map(manifests.map((dir) => [dir, read(dir).version]));
const versions = new Set(after.values());
if (pending.length > 0) {
  if (versions.size !== 1)
    problems.push(`the fixed group split: ${[...after].map(([dir, v]) => `${dir}@${v}`).join(", ")}`);
  for (const [dir, version] of after) {
    if (version === before.get(dir)) problems.push(`${dir} stayed at ${version}`);
    if (!read(dir).private && !existsSync(join(work, dir, "CHANGELOG.md")))
      problems.push(`${dir} got no CHANGELOG.md`);
  }
  const left = readdirSync(join(work, ".changeset")).filter(
    (name) => name.endsWith(".md") && name !== "README.md",
  );
  if (left.length > 0) problems.push(`changesets not consumed: ${left.join(", ")}`);
}
rmSync(work, { recursive: true, force: true });
const from = [...new Set(before.values())].join(", ");
process.stdout.write(
  `release-check: ${pending.length} changesets; ${manifests.length} packages ${from} -> ${[...versions].join(", ")}\n`,
);
if (problems.length > 0) {
  process.stdout.write(`${problems.map((line) => `FAIL  ${line}`).join("\n")}\n`);
  process.exit(1);
}
