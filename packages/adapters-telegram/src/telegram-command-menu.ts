import { type ChannelContext, chatCommands } from "@downcity/core";
import type { Api } from "grammy";

// Telegram's rules for a menu entry: 1-32 of a-z, 0-9 and _, a description of 1-256 characters.
const commandName = /^[a-z0-9_]{1,32}$/;

/**
 * Registers the chat commands the host answers (its built-ins and those the daemon's parts add, as
 * the channel context lists them; the built-ins for an older host) as the bot's command menu.
 * A name Telegram would refuse is left out of the menu; the host still answers it.
 */
export async function setTelegramCommandMenu(api: Api, commands?: ChannelContext["commands"]): Promise<void> {
  const listed = commands?.length
    ? commands
    : Object.entries(chatCommands).map(([name, description]) => ({ name, description }));
  await api.setMyCommands(
    listed
      .filter((command) => commandName.test(command.name) && command.description.trim().length > 0)
      .map((command) => ({ command: command.name, description: command.description.slice(0, 256) })),
  );
}
