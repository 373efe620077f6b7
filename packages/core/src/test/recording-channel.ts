import { z } from "zod";
import type {
  ChannelAdapter,
  ChannelAdapterDefinition,
  ChannelCapabilities,
  ChannelContext,
  ChannelMessage,
} from "../channel/adapter/channel-adapter.js";
import { defineChannelAdapter } from "../channel/adapter/channel-adapter.js";
import type { ChannelEvent, ParsedChannelEvent } from "../channel/adapter/channel-event.js";
import type { ChannelTarget } from "../store/outbox-store.js";

/** A message the recording channel holds, as a chat would show it. */
export interface RecordedMessage {
  messageId: string;
  target: ChannelTarget;
  text: string;
  actions?: ChannelMessage["actions"];
  idempotencyKey: string;
  /** How many times it was edited. */
  edits: number;
  deleted: boolean;
}

/** Options of `createRecordingChannel`: which optional parts of the contract it has. */
export interface RecordingChannelOptions {
  /** Shows buttons and reports presses (`capabilities.actions`) [false]. */
  actions?: boolean;
  /** Has `editing` (and `editing.delete` unless `delete: false`) [false]. */
  editing?: boolean;
  delete?: boolean;
  /** Has `answerAction` (private answers to presses) [true when `actions`]. */
  answerAction?: boolean;
  capabilities?: Partial<ChannelCapabilities>;
}

/** A recording in-process channel for host tests: every send, edit, delete and private answer. */
export interface RecordingChannel {
  definition: ChannelAdapterDefinition;
  adapter: ChannelAdapter;
  /** Every message sent, in order (edits and deletes change them in place). */
  messages: RecordedMessage[];
  /** Every edit call, in order, including failed ones. */
  editCalls: Array<{ messageId: string; message: ChannelMessage }>;
  /** Private answers to presses. */
  answers: Array<{ eventId: string; text: string }>;
  /** The context the host started the adapter with. */
  context(): ChannelContext;
  /** Makes the next edits fail (`"fail"`) or never settle (`"hang"`). */
  breakEdits(how: "fail" | "hang", count?: number): void;
  /** Hands an event to the host's inbox (a user's message or a button press). */
  deliver(event: ChannelEvent): ReturnType<ChannelContext["inbox"]["accept"]>;
}

/**
 * Creates a recording channel: an adapter under the name "recording" whose platform is an array.
 * Not a stand-in for a real platform (adapters prove themselves with `testChannelAdapter`); it is
 * for tests of what the host does with editing, buttons and presses.
 */
export function createRecordingChannel(options: RecordingChannelOptions = {}): RecordingChannel {
  const messages: RecordedMessage[] = [];
  const editCalls: RecordingChannel["editCalls"] = [];
  const answers: RecordingChannel["answers"] = [];
  const broken: Array<"fail" | "hang"> = [];
  let started: ChannelContext | undefined;
  const find = (messageId: string) => {
    const message = messages.find((candidate) => candidate.messageId === messageId);
    if (!message || message.deleted) throw new Error(`message ${messageId} not found`);
    return message;
  };
  const adapter: ChannelAdapter = {
    capabilities: {
      maxTextLength: 4000,
      threads: true,
      markdown: "none",
      idempotentSends: false,
      ...(options.actions ? { actions: true } : {}),
      ...options.capabilities,
    },
    async start(context) {
      started = context;
    },
    async stop() {
      started = undefined;
    },
    async send(target, message, sendOptions) {
      const messageId = `m${messages.length + 1}`;
      messages.push({
        messageId,
        target,
        text: message.text,
        ...(message.actions ? { actions: message.actions } : {}),
        idempotencyKey: sendOptions.idempotencyKey,
        edits: 0,
        deleted: false,
      });
      return { messageId };
    },
    ...(options.editing
      ? {
          editing: {
            async edit(_target: ChannelTarget, messageId: string, message: ChannelMessage) {
              editCalls.push({ messageId, message });
              const fault = broken.shift();
              if (fault === "hang") return new Promise<void>(() => {});
              if (fault === "fail") throw new Error("the platform refused the edit");
              const recorded = find(messageId);
              recorded.text = message.text;
              recorded.edits += 1;
              if (message.actions !== undefined)
                if (message.actions.length > 0) recorded.actions = message.actions;
                else delete recorded.actions;
            },
            ...(options.delete !== false
              ? {
                  async delete(_target: ChannelTarget, messageId: string) {
                    find(messageId).deleted = true;
                  },
                }
              : {}),
          },
        }
      : {}),
    ...((options.answerAction ?? options.actions)
      ? {
          async answerAction(event: ParsedChannelEvent, text: string) {
            answers.push({ eventId: event.eventId, text });
          },
        }
      : {}),
  };
  const context = () => {
    if (!started) throw new Error("the recording channel is not started");
    return started;
  };
  return {
    definition: defineChannelAdapter({ name: "recording", options: z.object({}), create: () => adapter }),
    adapter,
    messages,
    editCalls,
    answers,
    context,
    breakEdits(how, count = 1) {
      for (let index = 0; index < count; index++) broken.push(how);
    },
    deliver: (event) => context().inbox.accept(event),
  };
}
