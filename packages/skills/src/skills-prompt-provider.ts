import { definePromptProvider, type PromptProvider } from "@downcity/core";
import { activeToolsForSkills } from "./active-tools-for-skills.js";
import type { Skill } from "./skill.js";
import type { SkillCatalog } from "./skill-catalog.js";

/** Options of `createSkillsPromptProvider`. */
export interface SkillsPromptProviderOptions {
  catalog: SkillCatalog;
  /** Upper bound of the "available skills" listing, in characters (default 6000). */
  maxListingChars?: number;
  /** Each description is cut to this many characters in the listing (default 300). */
  maxDescriptionChars?: number;
  /** Each pinned body is cut to this many characters (default 20000); the model can read the rest from disk. */
  maxBodyChars?: number;
}

/** The order of the skills provider among prompt providers (after the base prompt, before memory). */
export const skillsPromptProviderOrder = 200;

/**
 * The skills prompt provider (order 200): lists the available skills within a size bound,
 * injects each pinned skill's body with its directory, and narrows `activeTools` when a pinned
 * skill declares `allowed-tools`. Vanished pins are dropped (and logged) by the catalog.
 */
export function createSkillsPromptProvider(options: SkillsPromptProviderOptions): PromptProvider {
  const maxListingChars = options.maxListingChars ?? 6000;
  const maxDescriptionChars = options.maxDescriptionChars ?? 300;
  const maxBodyChars = options.maxBodyChars ?? 20000;
  return definePromptProvider({
    id: "skills",
    order: skillsPromptProviderOrder,
    async provide(context) {
      const [available, pinned] = await Promise.all([
        options.catalog.skills(),
        options.catalog.loadPinned(context.contextId),
      ]);
      if (available.length === 0 && pinned.skills.length === 0) return undefined;
      const canLoad = context.toolNames.includes("skill_load");
      const messages: string[] = [];
      if (available.length > 0) {
        messages.push(
          skillListing(available, new Set(pinned.skills.map((skill) => skill.name)), {
            canLoad,
            maxListingChars,
            maxDescriptionChars,
          }),
        );
      }
      for (const skill of pinned.skills) messages.push(pinnedSkillPrompt(skill, maxBodyChars));
      const activeTools = activeToolsForSkills(pinned.skills);
      if (activeTools) {
        const usable = activeTools.filter((name) => context.toolNames.includes(name));
        messages.push(toolRestrictionPrompt(pinned.skills, usable));
      }
      return activeTools ? { messages, activeTools } : { messages };
    },
  });
}

function skillListing(
  skills: readonly Skill[],
  pinned: ReadonlySet<string>,
  limits: { canLoad: boolean; maxListingChars: number; maxDescriptionChars: number },
): string {
  const header = [
    "# Skills",
    limits.canLoad
      ? "Skills are packaged instructions for specific tasks. When a task matches a skill's description, call skill_load with its name to pin it to this conversation (its full instructions then appear in your system prompt); call skill_unload when you are done with it."
      : "Skills are packaged instructions for specific tasks; the user can pin one to this conversation with `downcity skills load`.",
    "",
    "Available skills:",
  ].join("\n");
  const lines: string[] = [];
  let size = header.length;
  for (const [index, skill] of skills.entries()) {
    const description = oneLine(skill.description, limits.maxDescriptionChars);
    const line = `- ${skill.name}${pinned.has(skill.name) ? " (pinned)" : ""}: ${description}`;
    const rest = skills.length - index;
    const footer = `- … and ${rest} more skill${rest === 1 ? "" : "s"} not listed here (\`downcity skills list\` shows all).`;
    if (size + line.length + 1 + footer.length + 1 > limits.maxListingChars) {
      lines.push(footer);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return `${header}\n${lines.join("\n")}`;
}

function pinnedSkillPrompt(skill: Skill, maxBodyChars: number): string {
  const body =
    skill.body.length > maxBodyChars
      ? `${skill.body.slice(0, maxBodyChars)}\n\n[… truncated; read the rest of ${skill.path}]`
      : skill.body;
  return [
    `# Pinned skill: ${skill.name}`,
    `Directory: ${skill.dir}`,
    "Paths in these instructions are relative to that directory; read its other files (scripts/, references/, …) with the shell when the instructions point to them.",
    "",
    body.trim(),
  ].join("\n");
}

function toolRestrictionPrompt(skills: readonly Skill[], activeTools: readonly string[]): string {
  const declared = skills
    .filter((skill) => skill.allowedTools !== undefined)
    .map((skill) => `- ${skill.name}: ${(skill.allowedTools ?? []).join(", ") || "(no tools)"}`);
  const patterns = skills
    .flatMap((skill) => skill.allowedTools ?? [])
    .filter((entry) => /\(.+\)$/s.test(entry));
  return [
    "# Tool restriction",
    "A pinned skill limits the tools of this conversation. Declared by the pinned skills:",
    ...declared,
    `Only these tools are available to you now: ${activeTools.join(", ") || "none"}. Do not try any other tool; unload the skill (skill_unload) if the task needs one.`,
    ...(patterns.length > 0
      ? [`Shell commands are limited to these patterns; run nothing else: ${patterns.join(", ")}.`]
      : []),
  ].join("\n");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
