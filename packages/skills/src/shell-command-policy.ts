/** The command patterns pinned skills impose on the shell, and the skills that impose them. */
export interface ShellCommandPolicy {
  /** `Bash(…)` pattern bodies, such as `git *`; a command must match one of them. */
  patterns: string[];
  /** Names of the skills declaring them, for the refusal message. */
  skills: string[];
}

const bashPattern = /^Bash\((.*)\)$/s;

/**
 * The shell command policy of a set of pinned skills: undefined (no restriction) when no pinned
 * skill declares a `Bash(…)` pattern or when one grants plain `Bash`; otherwise the union of
 * every declared pattern, so pinning a second skill can widen but never bypass the first.
 */
export function shellCommandPolicy(
  skills: ReadonlyArray<{ name: string; allowedTools?: readonly string[] | undefined }>,
): ShellCommandPolicy | undefined {
  const patterns = new Set<string>();
  const declaring = new Set<string>();
  for (const skill of skills) {
    for (const entry of skill.allowedTools ?? []) {
      const trimmed = entry.trim();
      if (trimmed === "Bash") return undefined;
      const match = bashPattern.exec(trimmed);
      if (!match) continue;
      patterns.add((match[1] as string).trim());
      declaring.add(skill.name);
    }
  }
  if (patterns.size === 0) return undefined;
  return { patterns: [...patterns], skills: [...declaring] };
}
