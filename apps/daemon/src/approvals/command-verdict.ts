import { type BashCommandParser, matchCommandPattern } from "@downcity/skills";
import { approvalPrefix } from "./approval-prefix.js";
import { type FloorPlaces, floorRefusal } from "./command-floor.js";
import { effectiveCommands, programName } from "./effective-commands.js";

/** The patterns a command is judged by: `Bash(…)` bodies such as `git push *`. */
export interface CommandPatterns {
  allow: readonly string[];
  deny: readonly string[];
  /** Prefixes approved with "always" (the approval store). */
  always: readonly string[];
}

/** What happens to a command: it runs, it is refused, or a human decides. */
export type CommandVerdict =
  | { kind: "allow" }
  | { kind: "deny"; reason: string; floor: boolean }
  | {
      kind: "ask";
      /** The commands no pattern covers, as text. */
      uncovered: string[];
      /** What "always" would store: one prefix pattern per uncovered command. */
      prefixes: string[];
    };

const bashBody = (pattern: string): string => pattern.replace(/^Bash\((.*)\)$/s, "$1").trim();

/**
 * Judges a command line: the floor first, then `deny` (matched on the program's name too, so
 * `/bin/rm` is `rm`, and on every command wrappers run), then `allow` plus the "always" prefixes,
 * which must cover every effective command of the line; anything else asks.
 */
export async function commandVerdict(options: {
  parser: BashCommandParser;
  command: string;
  patterns: CommandPatterns;
  places: FloorPlaces;
}): Promise<CommandVerdict> {
  const { command, patterns } = options;
  const effective = await effectiveCommands(options.parser, command);
  const floor = floorRefusal(command, effective.commands, options.places);
  if (floor) return { kind: "deny", reason: `refused by the built-in floor: ${floor}`, floor: true };
  const deny = patterns.deny.map(bashBody);
  for (const words of effective.commands) {
    const named = [programName(words[0] as string), ...words.slice(1)];
    const hit = deny.find(
      (pattern) => matchCommandPattern(pattern, words) || matchCommandPattern(pattern, named),
    );
    if (hit)
      return {
        kind: "deny",
        reason: `"${words.join(" ").slice(0, 80)}" matches the deny pattern Bash(${hit})`,
        floor: false,
      };
  }
  const allow = [...patterns.allow.map(bashBody), ...patterns.always.map(bashBody)];
  const uncovered = effective.commands.filter(
    (words) => !allow.some((pattern) => matchCommandPattern(pattern, words)),
  );
  if (uncovered.length === 0 && effective.problems.length === 0) return { kind: "allow" };
  const prefixes = [...new Set(uncovered.map(approvalPrefix))];
  return {
    kind: "ask",
    uncovered: [...uncovered.map((words) => words.join(" ")), ...effective.problems],
    prefixes,
  };
}
