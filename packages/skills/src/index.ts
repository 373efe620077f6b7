/**
 * The complete public surface of @downcity/skills: SKILL.md discovery, per-context pinning in the
 * history meta, the skills prompt provider (listing, pinned bodies, allowed tools), the agent
 * tools, the `skills` service and the shell command check enforcing `Bash(…)` patterns. Nothing else is public.
 */
export {
  activeToolsForSkills,
  chatToolNames,
  mapAllowedTool,
  shellToolNames,
  skillToolNames,
} from "./active-tools-for-skills.js";
export {
  type BashCommandParser,
  createBashCommandParser,
  type ParsedCommandLine,
  type SimpleCommand,
} from "./bash-command-parser.js";
export {
  createSkillsCommandCheck,
  type SkillsCommandCheckOptions,
  type SkillsCommandCheckRequest,
} from "./create-skills-command-check.js";
export { type DiscoveredSkills, type DiscoverSkillsOptions, discoverSkills } from "./discover-skills.js";
export { matchCommandPattern } from "./match-command-pattern.js";
export { parseAllowedTools } from "./parse-allowed-tools.js";
export {
  type ParsedSkillFile,
  type ParseSkillFileResult,
  parseSkillFile,
  skillFrontMatterSchema,
} from "./parse-skill-file.js";
export { type ShellCommandPolicy, shellCommandPolicy } from "./shell-command-policy.js";
export type { Skill, SkillProblem } from "./skill.js";
export {
  createSkillCatalog,
  type DroppedPin,
  type PinChange,
  type PinnedSkills,
  type SkillCatalog,
  type SkillCatalogOptions,
} from "./skill-catalog.js";
export { defaultSkillRootPaths, skillRoots } from "./skill-roots.js";
export { createSkillTools, type SkillToolsOptions } from "./skill-tools.js";
export { skillsConfigSchema, skillsPlugin } from "./skills-plugin.js";
export {
  createSkillsPromptProvider,
  type SkillsPromptProviderOptions,
  skillsPromptProviderOrder,
} from "./skills-prompt-provider.js";
export { createSkillsService, type SkillsServiceOptions } from "./skills-service.js";
