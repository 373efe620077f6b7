import type { z } from "zod";
import type { ReplyFormat } from "../../format/reply-format.js";
import type { AttachmentKind } from "../../history/message-attachment.js";
import type { Logger } from "../../logger/logger.js";
import type { ServiceDefinition } from "../../service/define-service.js";
import type { ChannelStateStore } from "../../store/adapter-state-store.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ChannelEditing } from "./channel-editing.js";
import type { ChannelEvent, ParsedChannelEvent } from "./channel-event.js";
import type { ChannelTyping } from "./channel-typing.js";

/** What the inbox made of an event; acknowledge the platform only once this resolves. */
export type AcceptResult = "accepted" | "duplicate" | "denied";

/** Where adapters hand incoming events: `accept` resolves after the event is fsynced (or dropped). */
export interface ChannelInbox {
  accept(event: ChannelEvent): Promise<AcceptResult>;
}

/** Connection state an adapter reports for `downcity channels list`. */
export type ChannelState = "connected" | "retrying" | "failed";

/** What `start` receives. */
export interface ChannelContext {
  /** The instance name (the channel part of context ids). */
  channel: string;
  inbox: ChannelInbox;
  logger: Logger;
  /** Aborted when the channel stops. */
  signal: AbortSignal;
  /** A private folder for this instance's state (offsets, cursors), created before start. */
  stateDir: string;
  /**
   * This instance's resume state (an offset, a gateway session), in the store every worker shares,
   * so the next poller resumes where the last stopped; absent in older hosts (then keep it in `stateDir`).
   */
  state?: ChannelStateStore;
  /**
   * The chat commands the host answers (built-ins and those the daemon's parts add), for platforms
   * with a command menu (Telegram's setMyCommands); absent in older hosts.
   */
  commands?: ReadonlyArray<{ name: string; description: string }>;
  /** Reports the connection state (and the error behind `retrying` / `failed`). */
  setState(state: ChannelState, error?: string): void;
}

/** A file of an outgoing message, with its bytes (read from its content-addressed copy). */
export interface ChannelMessageFile {
  name: string;
  mediaType: string;
  size: number;
  /** SHA-256 of `data` (hex). */
  sha256: string;
  data: Uint8Array;
}

/** A button under an outgoing message (approval choices); pressing it arrives as an event's `action`. */
export interface ChannelAction {
  /** What the press reports back (at most 64 bytes: Telegram's callback_data limit). */
  id: string;
  label: string;
}

/** One outgoing text, already split to the adapter's maximum length, with any files it carries. */
export interface ChannelMessage {
  text: string;
  /** Only given to adapters whose capabilities say `attachmentsOut`. */
  attachments?: ChannelMessageFile[];
  /**
   * Buttons, only given to adapters whose capabilities say `actions` (elsewhere the text says how to
   * answer with a command); sent with the last chunk. An empty list removes the buttons on `edit`.
   */
  actions?: ChannelAction[];
}

/** Options of `send`: a key stable across retries and replays of the same message. */
export interface ChannelSendOptions {
  idempotencyKey: string;
}

/** What a platform returned for a sent message. */
export interface ChannelSendResult {
  messageId?: string;
}

/** What a platform can render and hold. */
export interface ChannelCapabilities {
  /** Longest text of one message; longer replies are split on paragraph or line boundaries. */
  maxTextLength: number;
  threads: boolean;
  markdown: "none" | "commonmark" | "telegram-html" | "lark-md";
  /** True when the platform dedupes sends by `idempotencyKey` (no duplicate even after a crash). */
  idempotentSends: boolean;
  /** Kinds of incoming attachments the adapter maps (absent: text only). */
  attachmentsIn?: readonly AttachmentKind[];
  /** True when `send` delivers `message.attachments` natively (`chat_send` files). */
  attachmentsOut?: boolean;
  /** True when `send` shows `message.actions` as buttons and presses arrive as events with `action`. */
  actions?: boolean;
  /** What the platform renders of the Markdown the model writes. */
  format?: ReplyFormat;
  /**
   * True when the adapter pulls events itself (long polling, a gateway WebSocket): with a shared
   * store only the worker holding the channel's poller lock starts it. Webhook receivers leave it unset.
   */
  polls?: boolean;
}

/** A connected chat platform: receives into the inbox, sends what the outbox hands it. */
export interface ChannelAdapter {
  readonly capabilities: ChannelCapabilities;
  /** Connects and starts delivering events into `context.inbox`; a second call is a no-op. */
  start(context: ChannelContext): Promise<void>;
  /** Stops receiving, lets in-flight accepts finish, closes every handle; idempotent. */
  stop(): Promise<void>;
  /** Sends one message; throw `ChannelSendError` for 429s (with `retryAfterMs`) and permanent failures. */
  send(
    target: ChannelTarget,
    message: ChannelMessage,
    options: ChannelSendOptions,
  ): Promise<ChannelSendResult>;
  /** Shows that a run for a chat is in progress, on platforms that can (see `ChannelTyping`). */
  readonly typing?: ChannelTyping;
  /** Edits and deletes sent messages, on platforms that can (see `ChannelEditing`). */
  readonly editing?: ChannelEditing;
  /**
   * Answers a button press privately (Telegram's toast via answerCallbackQuery), e.g. "only approvers
   * can answer"; platforms without such a reply leave it unset and the host answers in the chat.
   */
  answerAction?(event: ParsedChannelEvent, text: string): Promise<void>;
}

/** A kind of channel: its options schema (the instance's `downcity.json` fields) and a factory. */
export interface ChannelAdapterDefinition<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly options: Schema;
  create(options: z.output<Schema>, context: { rootDir: string; logger: Logger }): ChannelAdapter;
  /**
   * Services of one instance (e.g. Telegram's `set-webhook`), registered while the channel runs; by
   * convention the service is named after the instance, so `downcity <instance> <action>` reaches it.
   */
  services?(options: z.output<Schema>, context: { channel: string; logger: Logger }): ServiceDefinition[];
}

/** Declares a channel adapter kind (what an adapter package exports by default). */
export function defineChannelAdapter<Schema extends z.ZodObject>(
  definition: ChannelAdapterDefinition<Schema>,
): ChannelAdapterDefinition<Schema> {
  if (typeof definition.create !== "function")
    throw new TypeError(`channel adapter "${definition.name}" has no create function`);
  return Object.freeze({ ...definition });
}

/** True when `value` has the shape `defineChannelAdapter` returns. */
export function isChannelAdapterDefinition(value: unknown): value is ChannelAdapterDefinition {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<ChannelAdapterDefinition>;
  return (
    typeof candidate.name === "string" &&
    typeof candidate.create === "function" &&
    candidate.options !== undefined
  );
}
