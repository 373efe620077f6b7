import {
  type ContextHistory,
  type DowncityConfig,
  errorFields,
  type Logger,
  readConfigSection,
} from "@downcity/core";
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
  history: (contextId: string) => ContextHistory;
  logger: Logger;
}) {
  // A broken `skills` section fails the skills plug-in, never the daemon; pins made earlier are still
  // enforced, from the default skill roots.
  let extraRoots: string[] = [];
  try {
    extraRoots = readConfigSection(options.config, { name: "skills", config: skillsConfigSchema }).value
      .roots;
  } catch (error) {
    options.logger.warn(
      errorFields(error),
      "skills section invalid; allowed-tools checks use the default skill roots",
    );
  }
  const catalog = createSkillCatalog({
    rootDir: options.rootDir,
    roots: skillRoots(options.rootDir, extraRoots),
    history: options.history,
    logger: options.logger,
  });
  return createSkillsCommandCheck({
    pinned: async (contextId) => (await catalog.loadPinned(contextId)).skills,
  });
}
