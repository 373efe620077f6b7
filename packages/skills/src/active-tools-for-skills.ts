/** The chat tools core gives every run; a skill's tool list never takes these away. */
export const chatToolNames = ["chat_send", "chat_load_history"] as const;

/** The shell tools (@downcity/shell's contract names) granted by `Bash`, `Read`, `Write`, `Edit`, `Grep`, `Glob`. */
export const shellToolNames = [
  "shell_exec",
  "shell_start",
  "shell_status",
  "shell_read",
  "shell_write",
  "shell_wait",
  "shell_close",
] as const;

/** The agent tools of this package; kept active so the model can always unload a skill. */
export const skillToolNames = ["skill_load", "skill_unload"] as const;

const shellGrantingTools = new Set(["Bash", "Read", "Write", "Edit", "MultiEdit", "Grep", "Glob", "LS"]);

/**
 * Maps one `allowed-tools` entry to runtime tool names: Claude-style shell-ish names (`Bash`,
 * `Bash(git *)`, `Read`, `Write`, `Edit`, `Grep`, `Glob`) grant the shell tools; anything else
 * (`mcp__server__tool`, `shell_exec`, unknown names) is kept as is and simply matches nothing
 * when no such tool exists.
 */
export function mapAllowedTool(entry: string): string[] {
  const base = entry.replace(/\(.*\)$/s, "").trim();
  if (shellGrantingTools.has(base)) return [...shellToolNames];
  return [entry];
}

/**
 * The `activeTools` a set of pinned skills allows: undefined when none declares `allowed-tools`
 * (no narrowing), else the chat and skill tools plus the union of every declared tool, mapped.
 */
export function activeToolsForSkills(
  skills: ReadonlyArray<{ allowedTools?: readonly string[] | undefined }>,
): string[] | undefined {
  const declaring = skills.filter((skill) => skill.allowedTools !== undefined);
  if (declaring.length === 0) return undefined;
  const names = new Set<string>([...chatToolNames, ...skillToolNames]);
  for (const skill of declaring)
    for (const entry of skill.allowedTools ?? []) for (const name of mapAllowedTool(entry)) names.add(name);
  return [...names];
}
