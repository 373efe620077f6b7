import { ShellError } from "../shell-error.js";

/** A command the engine is about to start, as a host's check sees it. */
export interface CommandCheckRequest {
  command: string;
  tty: boolean;
  /** The conversation the command runs for, when the caller named one. */
  contextId?: string;
  /** The working folder the caller asked for (relative to the engine's root, or absolute), if any. */
  cwd?: string;
  /** `write`: text typed into a running interactive (tty) session rather than a new command. */
  kind?: "command" | "write";
}

/**
 * A host-provided policy run before every `exec` and `start`: it returns a refusal the model
 * can act on (which programs are allowed and why this command is not), or undefined to allow.
 */
export type CommandCheck = (request: CommandCheckRequest) => Promise<string | undefined> | string | undefined;

/** Runs the host's check on a raw tool input and throws COMMAND_REFUSED with its reason. */
export async function enforceCommandCheck(
  check: CommandCheck | undefined,
  input: unknown,
  contextId: string | undefined,
): Promise<void> {
  if (!check) return;
  const fields = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  // A malformed input is left to the tool's own validation, which names the bad field.
  if (typeof fields.command !== "string") return;
  const refusal = await check({
    command: fields.command,
    tty: fields.tty === true,
    ...(contextId !== undefined ? { contextId } : {}),
    ...(typeof fields.cwd === "string" ? { cwd: fields.cwd } : {}),
  });
  if (refusal !== undefined) throw new ShellError("COMMAND_REFUSED", refusal);
}

/**
 * Runs the host's check on text typed into an interactive (tty) session, where each line is a
 * command for the shell or program inside; non-tty sessions (a program's stdin) and empty polls
 * are not checked.
 */
export async function enforceWriteCheck(
  check: CommandCheck | undefined,
  session: { tty: boolean; contextId: string | null; cwd: string },
  text: string,
): Promise<void> {
  if (!check || !session.tty || text.trim() === "") return;
  const refusal = await check({
    command: text,
    tty: true,
    kind: "write",
    cwd: session.cwd,
    ...(session.contextId !== null ? { contextId: session.contextId } : {}),
  });
  if (refusal !== undefined) throw new ShellError("COMMAND_REFUSED", refusal);
}
