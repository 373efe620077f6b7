import { errorFields, type Logger, type RunJournal, type ShellSessionRecord } from "@downcity/core";
import type { ShellEngine } from "@downcity/shell";

type SessionEntry = Omit<ShellSessionRecord, "v" | "type" | "at">;

/**
 * The shell engine with every session a run starts written into that run's journal (a `shell`
 * record: its id, mode, masked command and status), so `downcity runs show` lists the shells a run
 * left behind. Calls made outside a run (`downcity shell`, a scheduled task's own shell) are not
 * journaled. The record is written without `fdatasync`: the session's own folder outlives a crash
 * anyway. A journal that refuses it (a full disk, a run another worker took over) is logged; the
 * command's result stands.
 */
export function journaledShellSessions(
  engine: ShellEngine,
  options: { journal: RunJournal; mask: (text: string) => string; logger: Logger },
): ShellEngine {
  const record = async (requestId: string | undefined, entry: SessionEntry) => {
    if (!requestId) return;
    const at = new Date().toISOString();
    await options.journal
      .append(requestId, [{ type: "shell", at, ...entry }], { sync: false })
      .catch((error: unknown) =>
        options.logger.warn(
          { requestId, shellId: entry.shellId, ...errorFields(error) },
          "could not write the shell session into the run's journal",
        ),
      );
  };
  return {
    ...engine,
    async exec(input, call) {
      const result = await engine.exec(input, call);
      await record(call?.requestId, {
        shellId: result.shell_id,
        mode: "exec",
        command: options.mask(input.command),
        status: result.status,
      });
      return result;
    },
    async start(input, call) {
      const result = await engine.start(input, call);
      await record(call?.requestId, {
        shellId: result.shell_id,
        mode: input.mode ?? "background",
        command: options.mask(input.command),
        ...(input.service_name ? { serviceName: input.service_name } : {}),
        status: result.status,
      });
      return result;
    },
  };
}
