import type { ShellEngine } from "../engine/shell-engine.js";
import type { ShellListToolInput } from "../shell-inputs.js";
import type { ShellListEntry } from "../shell-results.js";

/** Result of the model's `shell_list`: newest sessions first, `total` before the limit. */
export interface ShellListResult {
  scope: "chat" | "workspace";
  total: number;
  sessions: ShellListEntry[];
}

/**
 * `shell_list` for a model: this conversation's sessions (`chat`) or the whole project's
 * (`workspace`), filtered by status, in the compact shape a model needs.
 */
export async function listSessions(
  engine: ShellEngine,
  args: Required<ShellListToolInput>,
  contextId: string | undefined,
  now: number,
): Promise<ShellListResult> {
  const all = await engine.list({ status: args.status });
  const inScope =
    args.scope === "workspace" ? all : all.filter((entry) => entry.context_id === (contextId ?? null));
  const sessions = inScope
    .sort((a, b) => b.started_at.localeCompare(a.started_at))
    .slice(0, args.limit)
    .map(
      (entry): ShellListEntry => ({
        shell_id: entry.shell_id,
        command: entry.command,
        mode: entry.mode,
        status: entry.status,
        exit_code: entry.exit_code,
        age_ms: Math.max(0, now - Date.parse(entry.started_at)),
        bytes_total: entry.bytes_total,
        stdout_bytes: entry.stdout_bytes,
        stderr_bytes: entry.stderr_bytes,
        service_name: entry.service_name,
        ready: entry.ready,
      }),
    );
  return { scope: args.scope, total: inScope.length, sessions };
}
