import { DowncityError } from "../../errors/downcity-error.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";

/** What a chat command's handler receives. */
export interface ChatCommandInput {
  /** The channel instance the command came through. */
  channel: string;
  contextId: string;
  /** The event, after access control. */
  event: ParsedChannelEvent;
  /** The text after the command's name, trimmed (`K7Q2 always` for `/approve K7Q2 always`). */
  args: string;
}

/**
 * A command the channel host answers itself, with no model call (`/stop`, `/usage`, `/approve`).
 * The text the handler returns is the reply; undefined sends none (the handler answered otherwise).
 */
export interface ChatCommandDefinition {
  /** Lowercase letters, digits and `_`, 1 to 32 of them (the rule of Telegram's command menu). */
  name: string;
  /** One line for `/help` and the platform's command menu. */
  description: string;
  handler(input: ChatCommandInput): Promise<string | undefined> | string | undefined;
  /**
   * In a group, a bare `/name` is answered without a mention of the bot (in a group let in; the
   * requireMention rule is lifted for it): for commands whose arguments say what they are about,
   * like `/approve CODE` typed under the bot's request. Default false.
   */
  answersWithoutMention?: boolean;
}

/** A command's name and description, as `/help` and command menus list them. */
export interface ChatCommandSummary {
  name: string;
  description: string;
}

const namePattern = /^[a-z0-9_]{1,32}$/;

/** Declares a chat command; throws INVALID_INPUT naming the field when the name or description is unusable. */
export function defineChatCommand(definition: ChatCommandDefinition): ChatCommandDefinition {
  if (!namePattern.test(definition.name))
    throw new DowncityError(
      "INVALID_INPUT",
      `Chat command name "${definition.name}" must be 1-32 lowercase letters, digits or _ (e.g. "usage").`,
      { field: "name" },
    );
  if (!definition.description.trim() || definition.description.length > 256)
    throw new DowncityError(
      "INVALID_INPUT",
      `Chat command /${definition.name} needs a description of 1-256 characters (shown by /help).`,
      { field: "description" },
    );
  if (typeof definition.handler !== "function")
    throw new DowncityError("INVALID_INPUT", `Chat command /${definition.name} has no handler function.`, {
      field: "handler",
    });
  return Object.freeze({ ...definition });
}

/** The commands a channel host answers; parts of the daemon add theirs before the host starts. */
export interface ChatCommandRegistry {
  /** Adds a command; CONFLICT when its name is taken. Returns the undo. */
  register(definition: ChatCommandDefinition): () => void;
  get(name: string): ChatCommandDefinition | undefined;
  /** Every command in registration order (built-ins first). */
  list(): ChatCommandSummary[];
  /**
   * The command a message is and its arguments: `/name`, `/name@bot`, then optional arguments.
   * In a group a bare `/name` counts only when the message mentions the bot (`@bot` addresses it)
   * or the command is defined with `answersWithoutMention`.
   */
  parse(
    event: Pick<ParsedChannelEvent, "text" | "chatType" | "mentionedBot">,
  ): { command: ChatCommandDefinition; args: string } | undefined;
  /** Whether `text` is a bare `/name` of a command that groups may use without a mention. */
  answersWithoutMention(text: string): boolean;
}

const commandLine = /^\/([A-Za-z0-9_]{1,32})(@\S+)?(?:\s+([\s\S]*))?$/;

/** Creates an empty registry (the host fills in the built-ins). */
export function createChatCommandRegistry(): ChatCommandRegistry {
  const commands = new Map<string, ChatCommandDefinition>();
  return {
    register(definition) {
      const command = defineChatCommand(definition);
      if (commands.has(command.name))
        throw new DowncityError("CONFLICT", `Chat command /${command.name} is registered twice.`, {
          field: "name",
        });
      commands.set(command.name, command);
      return () => {
        if (commands.get(command.name) === command) commands.delete(command.name);
      };
    },
    get: (name) => commands.get(name),
    list: () => [...commands.values()].map(({ name, description }) => ({ name, description })),
    parse(event) {
      const match = commandLine.exec(event.text.trim());
      const command = match?.[1] ? commands.get(match[1].toLowerCase()) : undefined;
      if (!command) return undefined;
      if (event.chatType === "group" && !match?.[2] && !event.mentionedBot && !command.answersWithoutMention)
        return undefined;
      return { command, args: (match?.[3] ?? "").trim() };
    },
    answersWithoutMention(text) {
      const match = commandLine.exec(text.trim());
      if (!match?.[1] || match[2]) return false;
      return commands.get(match[1].toLowerCase())?.answersWithoutMention === true;
    },
  };
}
