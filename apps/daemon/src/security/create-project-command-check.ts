import { type DowncityConfig, type HistoryStore, type Logger, readConfigSection } from "@downcity/core";
import {
  createSkillCatalog,
  createSkillsCommandCheck,
  skillRoots,
  skillsConfigSchema,
} from "@downcity/skills";

/**
 * The shell engine's `checkCommand` for a project: the `Bash(…)` patterns of the skills pinned
 * in the command's context, read from the same skill roots and pins as the skills plug-in.
 */
export function createProjectCommandCheck(options: {
  rootDir: string;
  config: DowncityConfig;
  history: (contextId: string) => HistoryStore;
  logger: Logger;
}) {
  const section = readConfigSection(options.config, { name: "skills", config: skillsConfigSchema }).value;
  const catalog = createSkillCatalog({
    rootDir: options.rootDir,
    roots: skillRoots(options.rootDir, section.roots),
    history: options.history,
    logger: options.logger,
  });
  return createSkillsCommandCheck({
    pinned: async (contextId) => (await catalog.loadPinned(contextId)).skills,
  });
}
