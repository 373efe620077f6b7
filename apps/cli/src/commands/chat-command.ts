import { defaultContextId as defaultChatContextId } from "@downcity/daemon/client";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { messageRole, messageText } from "../output/message-text.js";
import { printData } from "../output/print-data.js";
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
      const connection = await connectDaemon(io, { dir: options.dir });
      await runChatSession({
        io,
        client: connection.client,
        contextId: options.context ?? connection.defaultContextId ?? defaultChatContextId,
      });
    });

  chat
    .command("send")
    .description("Send one message and print the agent's reply")
    .argument("<text...>", "the message (words are joined with spaces)")
    .option("--context <id>", `context id (default: the agent shell's context, else ${defaultChatContextId})`)
    .option("--dir <dir>", "project directory")
    .option("--json", "print the daemon's reply as JSON")
    .action(async (words: string[], options: ChatOptions, command: Command) => {
      const merged = { ...command.parent?.opts<ChatOptions>(), ...options };
      const connection = await connectDaemon(io, { dir: merged.dir });
      const contextId = merged.context ?? connection.defaultContextId;
      const reply = await connection.client.chatSend({
        text: words.join(" "),
        ...(contextId !== undefined ? { contextId } : {}),
      });
      printData(io, reply, { json: merged.json, human: () => reply.text });
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
      const connection = await connectDaemon(io, { dir: merged.dir });
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
