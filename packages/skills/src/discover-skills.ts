import type { Dirent } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseSkillFile } from "./parse-skill-file.js";
import type { Skill, SkillProblem } from "./skill.js";

/** Options of `discoverSkills`. */
export interface DiscoverSkillsOptions {
  /** Folders searched in priority order: on a duplicate name the earlier root wins. Missing roots are skipped. */
  roots: readonly string[];
  /** How many folder levels below a root are searched (default 8). */
  maxDepth?: number;
}

/** Every usable skill, plus the skills and roots that were skipped and why. */
export interface DiscoveredSkills {
  skills: Skill[];
  problems: SkillProblem[];
}

const skillFileName = "SKILL.md";
const skippedFolders = new Set(["node_modules", ".git"]);

/**
 * Finds every directory (at any depth) under the roots that holds a `SKILL.md`; a malformed or
 * duplicate skill is reported in `problems`, never thrown. A skill's own subfolders are its
 * resources, so the search does not descend into a skill directory.
 */
export async function discoverSkills(options: DiscoverSkillsOptions): Promise<DiscoveredSkills> {
  const maxDepth = options.maxDepth ?? 8;
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const byName = new Map<string, Skill>();
  const visited = new Set<string>();

  const consider = async (root: string, dir: string) => {
    const path = join(dir, skillFileName);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      problems.push({ path, reason: `unreadable: ${(error as Error).message}` });
      return;
    }
    const parsed = parseSkillFile(text);
    if (!parsed.ok) {
      problems.push({ path, reason: parsed.reason });
      return;
    }
    const existing = byName.get(parsed.skill.name);
    if (existing) {
      problems.push({
        path,
        reason: `duplicate skill name "${parsed.skill.name}": ${existing.path} wins (found first); rename one of them`,
      });
      return;
    }
    const skill: Skill = { ...parsed.skill, dir, path, root };
    byName.set(skill.name, skill);
    skills.push(skill);
  };

  const walk = async (root: string, dir: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      return;
    }
    if (visited.has(real)) return;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: dir, reason: `cannot list folder: ${(error as Error).message}` });
      return;
    }
    if (entries.some((entry) => entry.name === skillFileName && !entry.isDirectory())) {
      await consider(root, dir);
      return;
    }
    if (depth >= maxDepth) return;
    const names = entries
      .filter((entry) => !entry.name.startsWith(".") && !skippedFolders.has(entry.name))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of names) {
      const child = join(dir, entry.name);
      const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && (await isFolder(child)));
      if (isDirectory) await walk(root, child, depth + 1);
    }
  };

  for (const rawRoot of options.roots) {
    const root = resolve(rawRoot);
    try {
      const info = await stat(root);
      if (!info.isDirectory()) {
        problems.push({ path: root, reason: "skill root is not a folder" });
        continue;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      problems.push({ path: root, reason: `cannot read skill root: ${(error as Error).message}` });
      continue;
    }
    await walk(root, root, 0);
  }
  return { skills, problems };
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
