import { type AgentRuntime, DowncityError, errorFields, type Logger } from "@downcity/core";
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
 * Enqueues each `shell-exit` of a session started from a chat as an internal message of that
 * chat, then acknowledges it so `engine.recover()` does not replay it. The message id
 * `shell-exit:<shell_id>` is checked against history first, so a replay after a crash between
 * the append and the ack never produces a second follow-up.
 */
export function wireShellExitFollowUp(options: {
  engine: ShellEngine;
  runtime: AgentRuntime;
  logger: Logger;
}): () => void {
  const { engine, runtime, logger } = options;
  const pending = new Set<Promise<void>>();
  const handle = async (event: ShellExitEvent) => {
    const contextId = event.context_id;
    if (!contextId) {
      await engine.ackExit(event.shell_id);
      return;
    }
    const messageId = `shell-exit:${event.shell_id}`;
    if (event.replayed) {
      const recent = await runtime.history(contextId).read({ last: 200 });
      if (recent.some((message) => message.metadata?.messageId === messageId)) {
        await engine.ackExit(event.shell_id);
        return;
      }
    }
    const delivery = runtime.send({ contextId, text: shellExitNotice(event), origin: "internal", messageId });
    try {
      await delivery;
    } catch (error) {
      // Shutdown before the lane ran: leave it unacknowledged so the next start replays it.
      if (DowncityError.isInstance(error) && error.code === "RUNTIME_CLOSED") return;
      logger.warn(
        { shellId: event.shell_id, contextId, ...errorFields(error) },
        "shell follow-up run failed",
      );
    }
    await engine.ackExit(event.shell_id);
  };
  return engine.on("shell-exit", (event) => {
    const task = handle(event)
      .catch((error) =>
        logger.error({ shellId: event.shell_id, ...errorFields(error) }, "shell follow-up failed"),
      )
      .finally(() => pending.delete(task));
    pending.add(task);
  });
}
