import { defaultContextId as defaultChatContextId } from "@downcity/daemon/status";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { createColors, isTerminal } from "../output/colors.js";
import { messageRole, messageText } from "../output/message-text.js";
import { printData } from "../output/print-data.js";
import { streamChatSend } from "./chat-send-stream.js";
import { runChatSession } from "./chat-session.js";
import { parsePositiveIntegerValue } from "./parse-option-value.js";

type ChatOptions = { context?: string; dir?: string; json?: boolean };

/** `downcity chat [send|history]`: talk to the project's agent through the cli channel. */
export function registerChatCommand(program: Command, io: CliIo): void {
  const chat = program
    .command("chat")
    .description("Chat with the project's agent; without a subcommand, open an interactive session")
    .option("--context <id>", `context id (default: the agent shell's context, else ${defaultChatContextId})`)
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .action(async (options: ChatOptions) => {
      const connection = await connectDaemon(io, { dir: options.dir, requireProject: true });
      await runChatSession({
        io,
        client: connection.client,
        contextId: options.context ?? connection.defaultContextId ?? defaultChatContextId,
      });
    });

  chat
    .command("send")
    .description("Send one message and print the agent's reply (streamed, with tool lines, on a terminal)")
    .argument("<text...>", "the message (words are joined with spaces)")
    .option("--context <id>", `context id (default: the agent shell's context, else ${defaultChatContextId})`)
    .option("--dir <dir>", "project directory")
    .option("--json", "print the daemon's reply as JSON")
    .option(
      "--no-wait",
      "return once the message is in the daemon's durable inbox, without waiting for the reply",
    )
    .action(async (words: string[], options: ChatOptions & { wait?: boolean }, command: Command) => {
      const merged = { ...command.parent?.opts<ChatOptions>(), ...options };
      const connection = await connectDaemon(io, { dir: merged.dir, requireProject: true });
      const contextId = merged.context ?? connection.defaultContextId ?? defaultChatContextId;
      const text = words.join(" ");
      // From inside the agent's own shell, waiting on its own context would wait on the very run that
      // is executing this command: queue instead, the reply comes after the current run.
      const ownContext = io.env.DC_CTX_CONTEXT_ID !== undefined && io.env.DC_CTX_CONTEXT_ID === contextId;
      if (merged.wait === false || ownContext) {
        const queued = await connection.client.chatQueue({ text, contextId });
        printData(io, queued, {
          json: merged.json,
          human: () =>
            `Queued ${queued.messageId} in ${queued.contextId}${queued.duplicate ? " (already received before)" : ""}; the reply goes to the chat.`,
        });
        return;
      }
      if (!merged.json && isTerminal(io.stdout)) {
        const colors = createColors({ env: io.env, isTTY: true });
        await streamChatSend({ io, client: connection.client, contextId, text, colors });
        return;
      }
      const reply = await connection.client.chatSend({ text, contextId });
      printData(io, reply, { json: merged.json, human: () => reply.text });
    });

  chat
    .command("cancel")
    .description("Cancel the running (or starting) reply of a context (its shell commands are stopped too)")
    .option("--context <id>", `context id (default: the agent shell's context, else ${defaultChatContextId})`)
    .option("--dir <dir>", "project directory")
    .option("--json", "print the cancelled runs as JSON")
    .action(async (options: ChatOptions, command: Command) => {
      const merged = { ...command.parent?.opts<ChatOptions>(), ...options };
      const connection = await connectDaemon(io, { dir: merged.dir, requireProject: true });
      const contextId = merged.context ?? connection.defaultContextId ?? defaultChatContextId;
      const result = await connection.client.chatCancel({ contextId });
      printData(
        io,
        { contextId, ...result },
        {
          json: merged.json,
          human: () =>
            result.cancelled.length === 0
              ? `Nothing was running in ${contextId}.`
              : `Cancelled ${result.cancelled.length === 1 ? "the run" : `${result.cancelled.length} runs`} in ${contextId} (${result.cancelled.map((run) => run.requestId).join(", ")}).`,
        },
      );
    });

  chat
    .command("history")
    .description("Print a context's persisted messages")
    .option("--context <id>", `context id (default: the agent shell's context, else ${defaultChatContextId})`)
    .option("--last <n>", "only the last N messages", parsePositiveIntegerValue)
    .option("--dir <dir>", "project directory")
    .option("--json", "print the messages as JSON")
    .action(async (options: ChatOptions & { last?: number }, command: Command) => {
      const merged = { ...command.parent?.opts<ChatOptions>(), ...options };
      const connection = await connectDaemon(io, { dir: merged.dir, requireProject: true });
      const contextId = merged.context ?? connection.defaultContextId;
      const history = await connection.client.chatHistory({
        ...(contextId !== undefined ? { contextId } : {}),
        ...(options.last !== undefined ? { last: options.last } : {}),
      });
      const messages = history.messages;
      printData(io, history, {
        json: merged.json,
        human: () =>
          messages.length === 0
            ? `No messages in ${history.contextId}.`
            : messages.map((message) => `${messageRole(message)}: ${messageText(message)}`).join("\n"),
      });
    });
}
