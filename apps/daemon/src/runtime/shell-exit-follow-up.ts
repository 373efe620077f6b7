import { errorFields, type InboxInput, internalInboxEvent, type Logger } from "@downcity/core";
import type { ShellEngine, ShellExitEvent } from "@downcity/shell";

/** The internal message the agent receives when a shell session it started ends. */
export function shellExitNotice(event: ShellExitEvent): string {
  const how =
    event.exit_code !== null
      ? `exited with code ${event.exit_code}`
      : event.signal
        ? `was stopped by ${event.signal}`
        : `ended (${event.status})`;
  const lines = [
    `[shell-exit] Shell session ${event.shell_id} (\`${event.command}\`) ${how} after ${Math.round(event.duration_ms / 100) / 10} s${event.replayed ? " (reported after a daemon restart)" : ""}.`,
    event.pruned ? "It was closed because the session limit was reached." : "",
    event.tail ? `Last output:\n${event.tail}` : "It printed nothing.",
    `Full output: shell_read with shell_id ${event.shell_id} (log ${event.log_path}).`,
    "Tell the user the result now.",
  ];
  return lines.filter(Boolean).join("\n");
}

/**
 * Records each `shell-exit` of a session started from a chat as an internal inbox event of that
 * chat (`shell-exit:<shell_id>`), then acknowledges it so `engine.recover()` does not replay it.
 * The follow-up runs as a claimed event like a chat message: never beside another run of the
 * context, in the inbox's order, on whichever worker holds the context. A replay after a crash
 * between the accept and the ack is a duplicate event id, so it never produces a second follow-up.
 */
export function wireShellExitFollowUp(options: {
  engine: ShellEngine;
  /** Accepts an event into the inbox (the channel host's `submit`). */
  submit(input: InboxInput): Promise<unknown>;
  logger: Logger;
}): () => void {
  const { engine, submit, logger } = options;
  const pending = new Set<Promise<void>>();
  const handle = async (event: ShellExitEvent) => {
    const contextId = event.context_id;
    if (contextId)
      // Not durable yet (the store is down or closing): left unacknowledged, the next start replays it.
      await submit(
        internalInboxEvent({
          kind: "follow-up",
          contextId,
          eventId: `shell-exit:${event.shell_id}`,
          text: shellExitNotice(event),
        }),
      );
    await engine.ackExit(event.shell_id);
  };
  return engine.on("shell-exit", (event) => {
    const task = handle(event)
      .catch((error) =>
        logger.warn(
          { shellId: event.shell_id, ...errorFields(error) },
          "shell follow-up not recorded; it is replayed at the next start",
        ),
      )
      .finally(() => pending.delete(task));
    pending.add(task);
  });
}
