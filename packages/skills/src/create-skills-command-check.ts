import { type BashCommandParser, createBashCommandParser } from "./bash-command-parser.js";
import { matchCommandPattern } from "./match-command-pattern.js";
import { shellCommandPolicy } from "./shell-command-policy.js";
import type { Skill } from "./skill.js";

/** A command about to run, as `@downcity/shell`'s `checkCommand` hook passes it. */
export interface SkillsCommandCheckRequest {
  command: string;
  tty: boolean;
  contextId?: string;
}

/** Options of `createSkillsCommandCheck`. */
export interface SkillsCommandCheckOptions {
  /** The skills pinned in a context, read fresh (a catalog's `loadPinned`). */
  pinned: (contextId: string) => Promise<ReadonlyArray<Pick<Skill, "name" | "allowedTools">>>;
  /** The parser [tree-sitter-bash, loaded on first use]. */
  parser?: BashCommandParser;
}

/**
 * Enforces the `Bash(…)` patterns of a context's pinned skills on shell commands: the command is
 * parsed with a real bash grammar and every simple command it would run (pipes, `&&`, `;`,
 * subshells, `$(…)`, backticks, here-documents) must match a pattern. Returns the refusal the
 * model sees, or undefined to allow. Plug it into the shell engine's `checkCommand` option.
 */
export function createSkillsCommandCheck(
  options: SkillsCommandCheckOptions,
): (request: SkillsCommandCheckRequest) => Promise<string | undefined> {
  const parser = options.parser ?? createBashCommandParser();
  return async (request) => {
    // Commands outside a conversation (the user's own CLI calls) carry no pins to enforce.
    if (request.contextId === undefined) return undefined;
    const policy = shellCommandPolicy(await options.pinned(request.contextId));
    if (!policy) return undefined;
    const allowed = policy.patterns.map((pattern) => `Bash(${pattern})`).join(", ");
    const scope = `the pinned skill${policy.skills.length > 1 ? "s" : ""} ${policy.skills.join(", ")} allow${policy.skills.length > 1 ? "" : "s"} only ${allowed}`;
    const fix =
      "run only allowed programs, one simple command at a time if needed, or unload the skill (skill_unload) first";
    const kind = request.tty ? "Interactive session (tty) refused" : "Command refused";
    const parsed = await parser.parse(request.command);
    if (parsed.problems.length > 0)
      return `${kind}: it cannot be checked because ${parsed.problems[0]}; ${scope}; ${fix}.`;
    const outside = parsed.commands.filter(
      (command) => !policy.patterns.some((pattern) => matchCommandPattern(pattern, command.words)),
    );
    if (outside.length === 0) return undefined;
    const names = outside.map((command) => `"${command.words.join(" ").slice(0, 80)}"`).join(", ");
    return `${kind}: ${names} ${outside.length > 1 ? "are" : "is"} not allowed; ${scope}. Every command in a pipeline, list, subshell or $(…) must match; ${fix}.`;
  };
}
