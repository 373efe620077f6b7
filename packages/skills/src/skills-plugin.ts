import { definePlugin, packageVersion } from "@downcity/core";
import { z } from "zod";
import { createSkillCatalog } from "./skill-catalog.js";
import { skillRoots } from "./skill-roots.js";
import { createSkillTools } from "./skill-tools.js";
import { createSkillsPromptProvider } from "./skills-prompt-provider.js";
import { createSkillsService } from "./skills-service.js";

/** The `skills` section of `downcity.json`. */
export const skillsConfigSchema = z.strictObject({
  roots: z.array(z.string()).default([]).describe("Extra skill roots, relative to the project or absolute"),
});

/** Skills as a plug-in: SKILL.md discovery, per-context pins, the prompt provider, agent tools and the `skills` service. */
export const skillsPlugin = definePlugin({
  name: "skills",
  version: packageVersion(import.meta.url, "@downcity/skills"),
  config: skillsConfigSchema,
  async setup({ rootDir, config, runtime, logger }) {
    const catalog = createSkillCatalog({
      rootDir,
      roots: skillRoots(rootDir, config.roots),
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
});
