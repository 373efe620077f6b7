import { DowncityError } from "@downcity/core";
import { type ToolSet, tool } from "ai";
import { z } from "zod";
import type { SkillCatalog } from "./skill-catalog.js";

/** Options of `createSkillTools`: the catalog and the context the run belongs to. */
export interface SkillToolsOptions {
  catalog: SkillCatalog;
  contextId: string;
}

const nameInput = z.object({
  name: z.string().trim().min(1).describe("The skill's name, as shown in the available skills listing"),
});

/**
 * The agent tools `skill_load` and `skill_unload` of one run: they pin/unpin a skill in the run's
 * context. `skill_load` also returns the skill's instructions so the model can follow them at once;
 * the pinned body (and any tool restriction) applies to the system prompt from the next run on.
 */
export function createSkillTools(options: SkillToolsOptions): ToolSet {
  const { catalog, contextId } = options;
  return {
    skill_load: tool({
      description:
        "Pin a skill to this conversation when the task matches its description. Returns the skill's instructions and directory; they stay in your system prompt until skill_unload.",
      inputSchema: nameInput,
      execute: async ({ name }) => {
        try {
          const change = await catalog.pinSkill(contextId, name);
          const skill = await catalog.get(name);
          return {
            ok: true,
            name,
            alreadyPinned: !change.changed,
            dir: skill?.dir,
            allowedTools: skill?.allowedTools,
            instructions: skill?.body,
            pinnedSkillIds: change.pinnedSkillIds,
          };
        } catch (error) {
          if (DowncityError.isInstance(error)) return { ok: false, error: error.message };
          throw error;
        }
      },
    }),
    skill_unload: tool({
      description: "Unpin a skill from this conversation (its instructions and tool limits no longer apply).",
      inputSchema: nameInput,
      execute: async ({ name }) => {
        const change = await catalog.unpinSkill(contextId, name);
        return { ok: true, name, wasPinned: change.changed, pinnedSkillIds: change.pinnedSkillIds };
      },
    }),
  };
}
