import { chatCommands } from "@downcity/core";
import type { Api } from "grammy";

/** Registers the host's chat commands (/stop, /new, /status, /help) as the bot's command menu. */
export async function setTelegramCommandMenu(api: Api): Promise<void> {
  await api.setMyCommands(
    Object.entries(chatCommands).map(([command, description]) => ({ command, description })),
  );
}
