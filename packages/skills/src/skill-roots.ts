import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** The roots every project searches, in priority order, before configured ones. */
export const defaultSkillRootPaths = [".agents/skills", "skills"] as const;

/**
 * The skill roots of a project in priority order: `<project>/.agents/skills`, `<project>/skills`,
 * then `skills.roots` from downcity.json (relative to the project, or absolute — the only way a
 * root outside the project is searched; a leading `~/` means the home folder).
 */
export function skillRoots(rootDir: string, configuredRoots: readonly string[] = []): string[] {
  const roots = [
    ...defaultSkillRootPaths.map((path) => join(rootDir, path)),
    ...configuredRoots.map((path) => {
      if (path === "~" || path.startsWith("~/")) return join(homedir(), path.slice(1));
      return isAbsolute(path) ? resolve(path) : resolve(rootDir, path);
    }),
  ];
  return [...new Set(roots)];
}
