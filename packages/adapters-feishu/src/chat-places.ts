/** Where a sent card lives, for the button presses that come back without it. */
export interface ChatPlaces {
  /** Notes a chat's type (from a received message or a send target). */
  noteChat(chatId: string, chatType: "direct" | "group" | undefined): void;
  /** Notes the thread a sent message went to. */
  noteSent(messageId: string, threadId: string | undefined): void;
  /** The chat type of `chatId` and the thread of `messageId`, asking Lark for the chat type when unknown. */
  placeOf(messageId: string, chatId: string): Promise<{ chatType: "direct" | "group"; threadId?: string }>;
}

// Enough for every card still worth pressing; the oldest entries go first.
const maxEntries = 5000;

function remember<V>(map: Map<string, V>, key: string, value: V) {
  map.delete(key);
  map.set(key, value);
  if (map.size > maxEntries) map.delete(map.keys().next().value as string);
}

/**
 * Lark's card callback names the chat and the card's message but neither the chat's type nor the thread:
 * both are remembered from what the adapter received and sent, and an unknown chat's type is asked from
 * `askChatType` (the chats API); a chat nobody can place counts as a group, the stricter access.
 */
export function createChatPlaces(askChatType: (chatId: string) => Promise<"direct" | "group">): ChatPlaces {
  const chats = new Map<string, "direct" | "group">();
  const threads = new Map<string, string>();
  return {
    noteChat(chatId, chatType) {
      if (chatType) remember(chats, chatId, chatType);
    },
    noteSent(messageId, threadId) {
      if (threadId) remember(threads, messageId, threadId);
    },
    async placeOf(messageId, chatId) {
      let chatType = chats.get(chatId);
      if (!chatType) {
        chatType = await askChatType(chatId).catch(() => "group" as const);
        remember(chats, chatId, chatType);
      }
      const threadId = threads.get(messageId);
      return { chatType, ...(threadId ? { threadId } : {}) };
    },
  };
}
