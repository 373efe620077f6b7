/** A file as the platform delivers it with a message (a photo, a voice note, a document). */
export interface FakeIncomingFile {
  kind: "image" | "audio" | "voice" | "video" | "file";
  mediaType: string;
  name?: string;
  data: Uint8Array;
}

/** A message as the platform would deliver it, before the adapter maps it. */
export interface FakeIncoming {
  /** The platform's delivery id; the fake picks a fresh one when absent. Reusing one is a redelivery. */
  eventId?: string;
  chatType: "direct" | "group";
  chatId: string;
  userId: string;
  username?: string;
  text: string;
  threadId?: string;
  /** Mention the bot in the platform's own way (the adapter must strip it from the text). */
  mentionBot?: boolean;
  /** A message without text (a sticker, a photo without caption): the adapter must ignore it. */
  nonText?: boolean;
  /** Files sent with the message (`text` is their caption, possibly empty); for adapters declaring `attachmentsIn`. */
  files?: FakeIncomingFile[];
}

/** What the platform received from the adapter. */
export interface FakeSent {
  chatId: string;
  threadId?: string;
  text: string;
  /** The idempotency key, for platforms that take one. */
  idempotencyKey?: string;
  /** Files the message carried, as the platform received them (adapters declaring `attachmentsOut`). */
  files?: Array<{ name?: string; mediaType?: string; data: Uint8Array }>;
  /**
   * How the platform was asked to render `text`: "plain", "markdown", "html" (Telegram's
   * parse_mode HTML) or "card" (`text` is then the card's JSON as sent).
   */
  format?: "plain" | "markdown" | "html" | "card";
}

/** A fake platform on 127.0.0.1 speaking the real wire format, driven by the suite. */
export interface ChannelFake {
  /** False for platforms without non-text messages (the suite then skips that check) [true]. */
  readonly hasNonText?: boolean;
  /** Delivers a message and resolves once the platform saw it acknowledged (`acked: false` on a timeout or error answer). */
  deliver(
    message: FakeIncoming,
    options?: { timeoutMs?: number },
  ): Promise<{ acked: boolean; eventId: string }>;
  /** Everything the adapter sent, in arrival order (duplicates included; a platform that dedupes by key keeps one). */
  sent(): FakeSent[];
  /**
   * The platform refuses the next formatted message as its own API does (Telegram's "can't parse
   * entities", QQ's markdown permission error, a bad card), so the adapter's plain-text fallback
   * runs; absent when the platform takes any text.
   */
  refuseNextFormatted?(): void;
  /** The next `count` sends answer "too many requests", asking to wait `retryAfterMs`. */
  rateLimitNextSends(count: number, retryAfterMs: number): void;
  close(): Promise<void>;
}
