import { DowncityError, defineService, type ServiceDefinition } from "@downcity/core";
import { z } from "zod";
import type { SkillCatalog } from "./skill-catalog.js";

/** Options of `createSkillsService`. */
export interface SkillsServiceOptions {
  catalog: SkillCatalog;
}

const pinInput = z.object({
  name: z.string().trim().min(1).describe("Skill name (its SKILL.md `name`)"),
  contextId: z
    .string()
    .min(1)
    .optional()
    .describe("Context to pin in; defaults to the calling context (inside an agent shell)"),
});

const emptyInput = z.object({});

/**
 * The `skills` service: `list` (skills, their files, the contexts that pin them, problems),
 * `load`/`unload` (pin/unpin in a context) and `rescan`; one definition for HTTP, CLI and agent.
 */
export function createSkillsService(options: SkillsServiceOptions): ServiceDefinition {
  const { catalog } = options;
  const contextOf = (input: { contextId?: string | undefined }, fallback: string | undefined): string => {
    const contextId = input.contextId ?? fallback;
    if (!contextId) {
      throw new DowncityError(
        "INVALID_INPUT",
        "contextId is required: pass --contextId <id> (e.g. console:main), or call from inside an agent shell",
        { field: "contextId" },
      );
    }
    return contextId;
  };
  return defineService({
    name: "skills",
    description: "SKILL.md skills: discovery, per-context pinning, allowed tools",
    actions: {
      list: {
        description: "List discovered skills, where they live, the contexts that pin them, and skipped files",
        input: emptyInput,
        handler: async () => {
          const [skills, problems, pins] = await Promise.all([
            catalog.skills(),
            catalog.problems(),
            catalog.pinnedContexts(),
          ]);
          return {
            roots: catalog.roots,
            skills: skills.map((skill) => ({
              name: skill.name,
              description: skill.description,
              path: skill.path,
              dir: skill.dir,
              ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
              pinnedIn: [...pins]
                .filter(([, ids]) => ids.includes(skill.name))
                .map(([contextId]) => contextId),
            })),
            problems,
          };
        },
      },
      load: {
        description: "Pin a skill in a context so its instructions join every run there",
        input: pinInput,
        handler: (input, context) => catalog.pinSkill(contextOf(input, context.contextId), input.name),
      },
      unload: {
        description: "Unpin a skill from a context",
        input: pinInput,
        handler: (input, context) => catalog.unpinSkill(contextOf(input, context.contextId), input.name),
      },
      rescan: {
        description: "Search the skill roots again",
        input: emptyInput,
        handler: async () => {
          const found = await catalog.rescan();
          return { skills: found.skills.map((skill) => skill.name), problems: found.problems };
        },
      },
    },
    start: async () => {
      await catalog.rescan();
    },
    status: async () => ({
      skills: (await catalog.skills()).length,
      problems: (await catalog.problems()).length,
    }),
  });
}
