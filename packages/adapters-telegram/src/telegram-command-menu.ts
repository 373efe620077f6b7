import { type ChannelContext, chatCommands } from "@downcity/core";
import type { Api } from "grammy";

/**
 * Registers the chat commands the host answers as the bot's command menu: the host's whole list
 * (`context.commands`: built-ins and those the daemon adds, such as /approve), else the built-ins.
 */
export async function setTelegramCommandMenu(api: Api, commands?: ChannelContext["commands"]): Promise<void> {
  const menu = commands?.length
    ? commands.map(({ name, description }) => ({ command: name, description }))
    : Object.entries(chatCommands).map(([command, description]) => ({ command, description }));
  await api.setMyCommands(menu);
}
