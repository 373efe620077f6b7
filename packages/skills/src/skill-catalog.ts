import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ContextHistory,
  contextDir,
  createContextMeta,
  createHistoryStore,
  DowncityError,
  decodeContextId,
  downcityPaths,
  errorFields,
  type Logger,
  silentLogger,
  toContextId,
} from "@downcity/core";
import { type DiscoveredSkills, discoverSkills } from "./discover-skills.js";
import { parseSkillFile } from "./parse-skill-file.js";
import type { Skill, SkillProblem } from "./skill.js";

/** Options of `createSkillCatalog`. */
export interface SkillCatalogOptions {
  /** The project root: default history location and where `pinnedContexts()` looks for contexts. */
  rootDir: string;
  /** Skill roots in priority order (see `skillRoots`). */
  roots: readonly string[];
  /** The history store of a context; pass the runtime's `history` so custom history folders (task runs) work. */
  history?: (contextId: string) => ContextHistory;
  logger?: Logger;
  /** How deep discovery searches below each root (default 8). */
  maxDepth?: number;
  /** Known skills older than this are searched for again on the next read (default 30000 ms; 0 = every read). */
  maxAgeMs?: number;
  now?: () => number;
}

/** A pin that was removed because its skill can no longer be used. */
export interface DroppedPin {
  name: string;
  reason: string;
}

/** The pinned skills of a context, read fresh from disk, and the pins dropped on the way. */
export interface PinnedSkills {
  skills: Skill[];
  dropped: DroppedPin[];
}

/** The result of pinning or unpinning: the context's pins afterwards and whether they changed. */
export interface PinChange {
  contextId: string;
  name: string;
  changed: boolean;
  pinnedSkillIds: string[];
}

/** Discovered skills plus per-context pins stored in the context's `messages/meta.json`. */
export interface SkillCatalog {
  readonly roots: readonly string[];
  /** Searches the roots again and replaces the known skills. */
  rescan(): Promise<DiscoveredSkills>;
  /** The known skills (scanned on first use and again once older than `maxAgeMs`). */
  skills(): Promise<Skill[]>;
  /** Skills and roots skipped by the last scan, with reasons. */
  problems(): Promise<SkillProblem[]>;
  /** A skill by name; on a miss the roots are searched again once. */
  get(name: string): Promise<Skill | undefined>;
  pinnedSkillIds(contextId: string): Promise<string[]>;
  /** Pins a known skill in a context (NOT_FOUND names the available skills otherwise). */
  pinSkill(contextId: string, name: string): Promise<PinChange>;
  /** Removes a pin; unknown or stale names are fine, so stale pins can always be removed. */
  unpinSkill(contextId: string, name: string): Promise<PinChange>;
  /** Reads each pinned skill's `SKILL.md` fresh; drops (and logs) pins whose file vanished or became unusable. */
  loadPinned(contextId: string): Promise<PinnedSkills>;
  /** Every context with pins: those under `.downcity/context/` plus any this catalog pinned in. */
  pinnedContexts(): Promise<Map<string, string[]>>;
}

/** Creates the skill catalog of a project. */
export function createSkillCatalog(options: SkillCatalogOptions): SkillCatalog {
  const logger = options.logger ?? silentLogger;
  const stores = new Map<string, ContextHistory>();
  const touchedContexts = new Set<string>();
  const maxAgeMs = options.maxAgeMs ?? 30000;
  const now = options.now ?? Date.now;
  let current: { found: DiscoveredSkills; at: number } | undefined;
  let scanning: Promise<DiscoveredSkills> | undefined;
  let reportedProblems = new Set<string>();
  let reportedNames: string | undefined;

  const history = (contextId: string): ContextHistory => {
    const id = toContextId(contextId);
    if (options.history) return options.history(id);
    let store = stores.get(id);
    if (!store) {
      store = createHistoryStore({ dir: join(contextDir(options.rootDir, id), "messages"), logger });
      stores.set(id, store);
    }
    return store;
  };

  const rescan = (): Promise<DiscoveredSkills> => {
    const startedAt = now();
    scanning ??= discoverSkills({
      roots: options.roots,
      ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
    })
      .then((found) => {
        current = { found, at: startedAt };
        // Periodic rescans log only what changed, so an unchanged broken skill warns once.
        const problemKeys = new Set(
          found.problems.map((problem) => `${problem.path}\u0000${problem.reason}`),
        );
        for (const problem of found.problems) {
          if (!reportedProblems.has(`${problem.path}\u0000${problem.reason}`))
            logger.warn({ ...problem }, "skill skipped");
        }
        reportedProblems = problemKeys;
        const names = found.skills.map((skill) => skill.name).join("\n");
        if (names !== reportedNames)
          logger.info({ skills: found.skills.length, problems: found.problems.length }, "skills discovered");
        reportedNames = names;
        return found;
      })
      .finally(() => {
        scanning = undefined;
      });
    return scanning;
  };

  const known = async (): Promise<DiscoveredSkills> =>
    current && now() - current.at < maxAgeMs ? current.found : await rescan();

  const get = async (name: string): Promise<Skill | undefined> => {
    const found = (await known()).skills.find((skill) => skill.name === name);
    if (found) return found;
    return (await rescan()).skills.find((skill) => skill.name === name);
  };

  /** Reads a skill's file again; a skill that moved is looked up by name after a rescan. */
  const reload = async (name: string): Promise<{ skill: Skill } | { reason: string }> => {
    const cached = (await known()).skills.find((skill) => skill.name === name);
    const attempt = async (skill: Skill | undefined) => {
      if (!skill) return { reason: "no skill with this name is found under the skill roots any more" };
      let text: string;
      try {
        text = await readFile(skill.path, "utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return {
          reason: code === "ENOENT" ? `${skill.path} vanished` : `${skill.path} is unreadable (${code})`,
        };
      }
      const parsed = parseSkillFile(text);
      if (!parsed.ok) return { reason: `${skill.path} is no longer valid: ${parsed.reason}` };
      if (parsed.skill.name !== name)
        return { reason: `${skill.path} was renamed to "${parsed.skill.name}"` };
      return { skill: { ...skill, ...parsed.skill } };
    };
    const first = await attempt(cached);
    if ("skill" in first) return first;
    const again = (await rescan()).skills.find((skill) => skill.name === name);
    return again ? attempt(again) : first;
  };

  // Pins live in the context's meta.json under plugins.skills.pinned.
  const pinsOf = (contextId: string) => createContextMeta(history(contextId), "skills");
  const pinnedOf = (meta: Record<string, unknown>): string[] =>
    Array.isArray(meta.pinned) ? meta.pinned.filter((id): id is string => typeof id === "string") : [];
  const pinnedSkillIds = async (contextId: string) => pinnedOf(await pinsOf(contextId).read());

  return {
    roots: options.roots,
    rescan,
    skills: async () => [...(await known()).skills],
    problems: async () => [...(await known()).problems],
    get,
    pinnedSkillIds,
    async pinSkill(contextId, name) {
      const skill = await get(name);
      if (!skill) {
        const names = (await known()).skills.map((entry) => entry.name);
        const shown =
          names.slice(0, 30).join(", ") + (names.length > 30 ? `, … (${names.length} in all)` : "");
        throw new DowncityError(
          "NOT_FOUND",
          `No skill named "${name}". Available skills: ${shown || "none (add a folder with a SKILL.md under .agents/skills or skills/)"}`,
          { field: "name" },
        );
      }
      let changed = false;
      const meta = await pinsOf(contextId).update((meta) => {
        const pinned = pinnedOf(meta);
        if (pinned.includes(name)) return undefined;
        changed = true;
        return { ...meta, pinned: [...pinned, name] };
      });
      touchedContexts.add(contextId);
      if (changed) logger.info({ contextId, skill: name }, "skill pinned");
      return { contextId, name, changed, pinnedSkillIds: pinnedOf(meta) };
    },
    async unpinSkill(contextId, name) {
      let changed = false;
      const meta = await pinsOf(contextId).update((meta) => {
        const pinned = pinnedOf(meta);
        if (!pinned.includes(name)) return undefined;
        changed = true;
        return { ...meta, pinned: pinned.filter((id) => id !== name) };
      });
      if (changed) logger.info({ contextId, skill: name }, "skill unpinned");
      return { contextId, name, changed, pinnedSkillIds: pinnedOf(meta) };
    },
    async loadPinned(contextId) {
      const ids = await pinnedSkillIds(contextId);
      const skills: Skill[] = [];
      const dropped: DroppedPin[] = [];
      for (const name of ids) {
        const result = await reload(name);
        if ("skill" in result) skills.push(result.skill);
        else dropped.push({ name, reason: result.reason });
      }
      if (dropped.length > 0) {
        const gone = new Set(dropped.map((pin) => pin.name));
        // Recomputed on the current meta under the history lock, so a concurrent pin is never lost.
        await pinsOf(contextId).update((meta) => ({
          ...meta,
          pinned: pinnedOf(meta).filter((id) => !gone.has(id)),
        }));
        for (const pin of dropped)
          logger.warn({ contextId, skill: pin.name, reason: pin.reason }, "dropped a pinned skill");
      }
      return { skills, dropped };
    },
    async pinnedContexts() {
      const contextIds = new Set(touchedContexts);
      const base = downcityPaths(options.rootDir).contextsDir;
      const entries = await readdir(base).catch(() => [] as string[]);
      for (const entry of entries) {
        try {
          contextIds.add(decodeContextId(entry));
        } catch {
          // Not a context folder; ignore it.
        }
      }
      const pinned = new Map<string, string[]>();
      for (const contextId of [...contextIds].sort()) {
        try {
          const ids = await pinnedSkillIds(contextId);
          if (ids.length > 0) pinned.set(contextId, ids);
        } catch (error) {
          logger.warn({ contextId, ...errorFields(error) }, "cannot read a context's pins");
        }
      }
      return pinned;
    },
  };
}
