import type { DaemonStatus } from "@downcity/daemon/client";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "./connect-daemon.js";

/** A channel or plug-in of a running daemon that failed to start, with its error. */
export interface DaemonFailure {
  kind: "channel" | "plugin";
  name: string;
  error: string;
}

interface ChannelListing {
  channels?: Array<{ name: string; adapter?: string; state: string; error?: string }>;
}

/**
 * What of a running daemon failed to start: plug-ins from its daemon.json, channels as the daemon
 * reports them (`channels list`). A channel that cannot be asked is a failure too, never hidden.
 */
export async function daemonFailures(
  io: CliIo,
  rootDir: string,
  status: DaemonStatus,
): Promise<DaemonFailure[]> {
  const failures: DaemonFailure[] = (status.plugins ?? [])
    .filter((plugin) => plugin.state === "failed")
    .map((plugin) => ({ kind: "plugin", name: plugin.name, error: plugin.error?.message ?? "failed" }));
  try {
    const { client } = await connectDaemon(io, { dir: rootDir });
    const { result } = await client.servicesCommand({ service: "channels", action: "list" });
    for (const channel of (result as ChannelListing).channels ?? []) {
      if (channel.state !== "failed") continue;
      failures.push({ kind: "channel", name: channel.name, error: channel.error ?? "failed" });
    }
  } catch (error) {
    failures.push({
      kind: "channel",
      name: "(all)",
      error: `could not ask the daemon for its channels: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return failures;
}

/** One line per failure, e.g. `channel hook failed: 127.0.0.1:8787 is in use: choose another listen.port ...`. */
export function describeFailures(failures: readonly DaemonFailure[]): string {
  return failures.map((failure) => `  ${failure.kind} ${failure.name} failed: ${failure.error}`).join("\n");
}
