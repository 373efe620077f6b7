/** Everything a host can observe about runs, as a discriminated union (`<noun>-<action>`). */
export type RuntimeEvent =
  /** A message entered a context's queue (a waiting tool such as a sleep can end early on it). */
  | { type: "message-queued"; contextId: string; messageId?: string; origin: "user" | "internal" }
  | { type: "run-start"; contextId: string; requestId: string; messageIds: string[] }
  | { type: "message-merged"; contextId: string; requestId: string; messageIds: string[]; step: number }
  | { type: "text-delta"; contextId: string; requestId: string; delta: string }
  | {
      type: "chat-message";
      contextId: string;
      requestId: string;
      channel?: string;
      chatId?: string;
      text: string;
      via: "chat_send" | "final-text";
    }
  | { type: "run-end"; contextId: string; requestId: string; text: string; steps: number }
  | { type: "run-error"; contextId: string; requestId: string; code: string; message: string }
  | { type: "context-compacted"; contextId: string; archiveId: string; archivedCount: number };

/** Receives runtime events; must not throw (errors are logged and ignored). */
export type RuntimeEventListener = (event: RuntimeEvent) => void;
