import {
  createSkillCatalog,
  createSkillsPromptProvider,
  createSkillsService,
  createSkillTools,
  skillRoots,
} from "@downcity/skills";
import type { Feature } from "./feature.js";

/** Skills: SKILL.md discovery under the project's roots, per-context pins, the prompt provider, agent tools and the `skills` service. */
export const skillsFeature: Feature = {
  name: "skills",
  async setup({ rootDir, config, runtime, logger }) {
    const catalog = createSkillCatalog({
      rootDir,
      roots: skillRoots(rootDir, config.skills?.roots ?? []),
      history: (contextId) => runtime.history(contextId),
      logger,
    });
    await catalog.rescan();
    return {
      services: [createSkillsService({ catalog })],
      tools: [(run) => createSkillTools({ catalog, contextId: run.contextId })],
      promptProviders: [createSkillsPromptProvider({ catalog })],
    };
  },
};
