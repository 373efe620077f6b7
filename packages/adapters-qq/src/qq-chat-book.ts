import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** How long after a user's message the bot may reply to it. */
export const qqReplyWindowMs = { direct: 60 * 60_000, group: 5 * 60_000 } as const;
/** Replies the platform allows to one user message. */
export const qqRepliesPerMessage = 5;

const chatSchema = z.object({
  kind: z.enum(["direct", "group"]),
  lastMessageId: z.string().optional(),
  lastAt: z.number().optional(),
});
const fileSchema = z.record(z.string(), chatSchema);
const fileName = "qq-chats.json";
const remembered = 5000;

/** A chat as the adapter knows it: user or group, and its newest message (a possible reply target). */
export type QqChat = z.output<typeof chatSchema>;

/**
 * What the adapter learned about the chats it heard from: whether an openid is a user or a group
 * (QQ's ids do not say), when each message was sent and how often it was answered (the reply
 * window and the five replies a message allows), and each chat's newest message, so a follow-up
 * without a trigger can still go out as a reply. Chats are saved in the instance's state folder,
 * so a follow-up after a restart still knows where to go.
 */
export interface QqChatBook {
  /** Loads the saved chats of `stateDir` and saves there from now on. */
  attach(stateDir: string): Promise<void>;
  noteMessage(
    message: { chatId: string; chatType: "direct" | "group"; messageId: string },
    sentAt: number,
  ): void;
  kind(chatId: string): "direct" | "group" | undefined;
  sentAt(messageId: string): number | undefined;
  /** The chat's newest message, while the platform still takes replies to it (time and count). */
  replyable(chatId: string, now: number, replies: number): string | undefined;
  /** Counts a reply to `messageId`. */
  replied(messageId: string): void;
  /** Waits for the last save. */
  flush(): Promise<void>;
}

/** Creates an empty chat book (in memory until `attach`). */
export function createQqChatBook(): QqChatBook {
  const chats = new Map<string, QqChat>();
  const messages = new Map<string, { at: number; replies: number }>();
  let stateDir: string | undefined;
  let writes: Promise<void> = Promise.resolve();
  const touch = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > remembered) map.delete(map.keys().next().value as string);
  };
  // Not fsynced: a lost write only means a follow-up finds no chat kind or reply target.
  const save = () => {
    if (!stateDir) return;
    const target = join(stateDir, fileName);
    const snapshot = JSON.stringify(Object.fromEntries(chats));
    writes = writes
      .then(async () => {
        await writeFile(`${target}.tmp`, snapshot);
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
      for (const [chatId, chat] of Object.entries(saved ?? {})) {
        if (!chats.has(chatId)) chats.set(chatId, chat);
        if (chat.lastMessageId && chat.lastAt !== undefined && !messages.has(chat.lastMessageId))
          messages.set(chat.lastMessageId, { at: chat.lastAt, replies: 0 });
      }
    },
    noteMessage(message, sentAt) {
      touch(chats, message.chatId, {
        kind: message.chatType,
        lastMessageId: message.messageId,
        lastAt: sentAt,
      });
      if (!messages.has(message.messageId)) touch(messages, message.messageId, { at: sentAt, replies: 0 });
      save();
    },
    kind: (chatId) => chats.get(chatId)?.kind,
    sentAt: (messageId) => messages.get(messageId)?.at,
    replyable(chatId, now, replies) {
      const chat = chats.get(chatId);
      const message = chat?.lastMessageId ? messages.get(chat.lastMessageId) : undefined;
      if (!chat?.lastMessageId || !message) return undefined;
      // A minute of margin: a reply sent at the very end of the window would be refused on arrival.
      if (now - message.at > qqReplyWindowMs[chat.kind] - 60_000) return undefined;
      return message.replies + replies <= qqRepliesPerMessage ? chat.lastMessageId : undefined;
    },
    replied(messageId) {
      const message = messages.get(messageId);
      if (message) message.replies += 1;
    },
    flush: () => writes,
  };
}
