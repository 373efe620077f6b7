import { chmod, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const chatSchema = z.object({
  kind: z.enum(["direct", "group"]),
  /** The context token of the chat's newest message: what a reply must carry. */
  token: z.string().optional(),
  at: z.number().optional(),
});
const fileSchema = z.record(z.string(), chatSchema);
const fileName = "weixin-chats.json";
const remembered = 5000;

/** A chat as the adapter knows it. */
export type WeixinChat = z.output<typeof chatSchema>;

/**
 * The context tokens the adapter heard: iLink lets the bot send only with the `context_token` of a message
 * the user sent (passive replies), so each chat's newest token is kept (in the instance's private state
 * folder, mode 0600: a token lets anyone holding the bot token write to that chat) together with the
 * tokens of recent messages, so a reply goes with the token of the message it answers.
 */
export interface WeixinChatBook {
  attach(stateDir: string): Promise<void>;
  note(
    message: { chatId: string; chatType: "direct" | "group"; messageId: string },
    token: string | undefined,
    at: number,
  ): void;
  kind(chatId: string): "direct" | "group" | undefined;
  /** The token to reply with: the answered message's, else the chat's newest one, while younger than `maxAgeMs`. */
  token(chatId: string, replyTo: string | undefined, now: number, maxAgeMs: number): string | undefined;
  /** Forgets a token the platform refused (the window of that message closed). */
  expire(chatId: string, token: string): void;
  flush(): Promise<void>;
}

/** Creates an empty chat book (in memory until `attach`). */
export function createWeixinChatBook(): WeixinChatBook {
  const chats = new Map<string, WeixinChat>();
  const messages = new Map<string, { token: string; at: number }>();
  let stateDir: string | undefined;
  let writes: Promise<void> = Promise.resolve();
  const touch = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > remembered) map.delete(map.keys().next().value as string);
  };
  // Not fsynced: a lost write only means a follow-up after a restart waits for the chat's next message.
  const save = () => {
    if (!stateDir) return;
    const target = join(stateDir, fileName);
    const snapshot = JSON.stringify(Object.fromEntries(chats));
    writes = writes
      .then(async () => {
        await writeFile(`${target}.tmp`, snapshot, { mode: 0o600 });
        await chmod(`${target}.tmp`, 0o600);
        await rename(`${target}.tmp`, target);
      })
      .catch(() => {});
  };
  return {
    async attach(dir) {
      stateDir = dir;
      const saved = await readFile(join(dir, fileName), "utf8")
        .then((text) => fileSchema.safeParse(JSON.parse(text)).data)
        .catch(() => undefined);
      for (const [chatId, chat] of Object.entries(saved ?? {}))
        if (!chats.has(chatId)) chats.set(chatId, chat);
    },
    note(message, token, at) {
      const known = chats.get(message.chatId);
      touch(chats, message.chatId, {
        kind: message.chatType,
        ...(token ? { token, at } : known?.token ? { token: known.token, at: known.at } : {}),
      });
      if (token) touch(messages, message.messageId, { token, at });
      save();
    },
    kind: (chatId) => chats.get(chatId)?.kind,
    token(chatId, replyTo, now, maxAgeMs) {
      const answered = replyTo ? messages.get(replyTo) : undefined;
      if (answered && now - answered.at <= maxAgeMs) return answered.token;
      const chat = chats.get(chatId);
      if (chat?.token && chat.at !== undefined && now - chat.at <= maxAgeMs) return chat.token;
      return undefined;
    },
    expire(chatId, token) {
      for (const [id, entry] of messages) if (entry.token === token) messages.delete(id);
      const chat = chats.get(chatId);
      if (chat?.token === token) {
        chats.set(chatId, { kind: chat.kind });
        save();
      }
    },
    flush: () => writes,
  };
}
