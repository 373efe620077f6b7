import type { BashCommandParser } from "@downcity/skills";

/** Every simple command a command line would run, wrappers opened up, and what could not be checked. */
export interface EffectiveCommands {
  /** Word lists: each parsed command, then the commands wrappers run (`env X=1 git push` adds `git push`). */
  commands: string[][];
  /** Constructs no pattern can vouch for (syntax errors, functions, assignments, computed program names). */
  problems: string[];
}

/** Programs that run the rest of their arguments as a command. */
const prefixWrappers = new Set([
  "env",
  "sudo",
  "doas",
  "nice",
  "nohup",
  "timeout",
  "time",
  "command",
  "builtin",
  "exec",
  "xargs",
  "stdbuf",
  "setsid",
  "ionice",
  "chrt",
  "taskset",
  "unbuffer",
  "strace",
  "ltrace",
  "watch",
  "busybox",
]);
/** Programs that run a script given with `-c`. */
const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "su"]);
const maxDepth = 4;

/** The program's name without its folder: `/usr/bin/rm` is `rm`. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

// Options, `NAME=value` assignments and durations a wrapper takes before its command.
const wrapperArgument = /^(-.*|[A-Za-z_][A-Za-z0-9_]*=.*|\d+(\.\d+)?[smhd]?)$/s;

/**
 * Parses `source` and opens every wrapper: `bash -c '…'`, `sh -c`, `su -c` and `eval` are parsed
 * again, `env`/`sudo`/`timeout`/`xargs`/`nice`/… are stripped to the command they run, and
 * `find … -exec cmd … ;` yields `cmd …`. Deny patterns and the floor look at all of them, and allow
 * patterns must cover all of them.
 */
export async function effectiveCommands(
  parser: BashCommandParser,
  source: string,
): Promise<EffectiveCommands> {
  const found: EffectiveCommands = { commands: [], problems: [] };
  const visitScript = async (script: string, depth: number): Promise<void> => {
    if (depth > maxDepth) {
      found.problems.push("it nests shells too deeply to check");
      return;
    }
    const parsed = await parser.parse(script);
    found.problems.push(...parsed.problems);
    for (const command of parsed.commands) await visitWords(command.words, depth);
  };
  const visitWords = async (words: string[], depth: number): Promise<void> => {
    if (words.length === 0) return;
    found.commands.push(words);
    const program = programName(words[0] as string);
    const args = words.slice(1);
    if (shells.has(program)) {
      const flag = args.findIndex((word) => /^-[A-Za-z]*c[A-Za-z]*$/.test(word) || word === "--command");
      const script = flag >= 0 ? args[flag + 1] : undefined;
      if (script !== undefined) await visitScript(script, depth + 1);
    } else if (program === "eval") {
      await visitScript(args.join(" "), depth + 1);
    } else if (prefixWrappers.has(program)) {
      const start = args.findIndex((word) => !wrapperArgument.test(word));
      if (start >= 0) await visitWords(args.slice(start), depth + 1);
    } else if (program === "find") {
      for (let index = 0; index < args.length; index++) {
        if (!/^-(exec|execdir|ok|okdir)$/.test(args[index] as string)) continue;
        const end = args.findIndex((word, at) => at > index && (word === ";" || word === "+"));
        await visitWords(args.slice(index + 1, end < 0 ? undefined : end), depth + 1);
      }
    }
  };
  await visitScript(source, 0);
  return found;
}
