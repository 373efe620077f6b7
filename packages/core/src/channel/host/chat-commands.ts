import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";
import type { ReplyRecorder } from "./reply-recorder.js";

/** The commands the host answers itself, without calling the model. */
export const chatCommands = {
  stop: "Stop what I am doing in this chat",
  new: "Start a fresh conversation (the old one is archived)",
  status: "Whether I am working on something here",
  help: "List these commands",
} as const;

/** One of `chatCommands`. */
export type ChatCommand = keyof typeof chatCommands;

/**
 * The command a message is: `/name` or `/name@bot` as its whole text. In a group a bare `/name`
 * counts only when the message mentions the bot (an `@suffix` addresses one bot already).
 */
export function parseChatCommand(
  event: Pick<ParsedChannelEvent, "text" | "chatType" | "mentionedBot">,
): ChatCommand | undefined {
  const match = /^\/([a-z]+)(@\S+)?$/i.exec(event.text.trim());
  const name = match?.[1]?.toLowerCase();
  if (!name || !(name in chatCommands)) return undefined;
  if (event.chatType === "group" && !match?.[2] && !event.mentionedBot) return undefined;
  return name as ChatCommand;
}

const helpText = `Commands:\n${Object.entries(chatCommands)
  .map(([name, description]) => `/${name} — ${description}`)
  .join("\n")}`;

/**
 * Answers chat commands from users who passed access control: `/stop` cancels the chat's run (its
 * tools and shell commands are aborted), `/new` archives the history behind a marker, `/status`
 * says whether a run is going on, `/help` lists them. True when the event was a command.
 */
export function createChatCommands(options: {
  runtime: Pick<AgentRuntime, "cancel" | "history" | "stats">;
  replies: ReplyRecorder;
  logger: Logger;
}) {
  const { runtime, replies, logger } = options;
  const running = new Map<string, number>();

  const answer = async (command: ChatCommand, contextId: string): Promise<string> => {
    if (command === "help") return helpText;
    if (command === "stop") {
      const stopped = await runtime.cancel({ contextId });
      return stopped.length > 0 ? "Stopped." : "Nothing is running here.";
    }
    if (command === "status") {
      const since = running.get(contextId);
      return since === undefined
        ? "Idle: nothing is running here."
        : `Working on it (for ${Math.round((Date.now() - since) / 1000)} s). Send /stop to stop.`;
    }
    const archived = await runtime.history(contextId).compact({
      keepLast: 0,
      summarize: async () => "The user started a new conversation with /new; earlier messages are archived.",
      reason: "new-conversation",
    });
    return archived
      ? `Started a new conversation (${archived.archivedCount} earlier messages archived).`
      : "This conversation is already empty.";
  };

  return {
    /** Notes when a context's run started and ended, for `/status`. */
    runStarted: (contextId: string) => running.set(contextId, running.get(contextId) ?? Date.now()),
    runEnded: (contextId: string) => running.delete(contextId),
    async handle(channel: string, contextId: string, event: ParsedChannelEvent): Promise<boolean> {
      const command = parseChatCommand(event);
      if (!command) return false;
      const target: ChannelTarget = {
        chatId: event.chatId,
        chatType: event.chatType,
        replyToMessageId: event.messageId,
        ...(event.threadId ? { threadId: event.threadId } : {}),
      };
      try {
        const text = await answer(command, contextId);
        await replies.record(channel, contextId, target, text, `command:${channel}:${event.eventId}`);
      } catch (error) {
        logger.error({ channel, command, ...errorFields(error) }, "chat command failed");
      }
      return true;
    },
  };
}
