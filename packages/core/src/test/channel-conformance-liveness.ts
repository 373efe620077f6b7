import { expect, it } from "vitest";
import type { ChannelAdapter, ChannelAdapterDefinition } from "../channel/adapter/channel-adapter.js";
import type { ChannelEvent } from "../channel/adapter/channel-event.js";
import { silentLogger } from "../logger/logger.js";
import type { ChannelTarget } from "../store/outbox-store.js";
import type { ChannelFake } from "./channel-fake.js";
import { createRecordingContext, type RecordingContext } from "./recording-context.js";

/**
 * What a fake platform reports for the typing and editing cases of the conformance suite; a fake
 * whose adapter has `typing` or `editing` must implement the matching method.
 */
export interface ChannelFakeLiveness {
  /** Every typing indicator the platform was shown, in order, by chat (as delivered) and thread. */
  typingSeen?(): Array<{ chatId: string; threadId?: string }>;
  /** A message the adapter sent, by the id `send` returned, as the platform shows it now. */
  sentMessage?(messageId: string): { text: string; deleted: boolean } | undefined;
}

/** What the liveness cases need from the suite that registers them. */
export interface LivenessCaseOptions<Fake extends ChannelFake> {
  fake(): Fake;
  root(): string;
  createAdapter(fake: Fake): { definition: ChannelAdapterDefinition; options: Record<string, unknown> };
  timeoutMs: number;
}

async function startedAdapter<Fake extends ChannelFake>(
  options: LivenessCaseOptions<Fake>,
): Promise<{ adapter: ChannelAdapter; recording: RecordingContext; close(): Promise<void> }> {
  const { definition, options: adapterOptions } = options.createAdapter(options.fake());
  const adapter = definition.create(definition.options.parse(adapterOptions), {
    rootDir: options.root(),
    logger: silentLogger,
  });
  const recording = await createRecordingContext({ channel: "conf" });
  await adapter.start(recording.context);
  return {
    adapter,
    recording,
    async close() {
      recording.abort();
      await adapter.stop();
      await recording.dispose();
    },
  };
}

// The event the adapter mapped from a message the fake delivered: the chat and thread in its own terms.
async function mappedEvent(
  recording: RecordingContext,
  deliver: () => Promise<unknown>,
  timeoutMs: number,
): Promise<ChannelEvent> {
  const before = recording.events.length;
  await deliver();
  await recording.until(() => recording.events.length > before, "the delivered message", timeoutMs);
  return recording.events[recording.events.length - 1] as ChannelEvent;
}

const targetOf = (event: ChannelEvent): ChannelTarget => ({
  chatId: event.chatId,
  chatType: event.chatType,
  replyToMessageId: event.messageId,
  ...(event.threadId ? { threadId: event.threadId } : {}),
});

/**
 * Registers the typing and editing cases (inside the suite's `describe`): each runs only when the
 * adapter has the capability, against the platform's own fake. Typing start (and stop) reach the
 * platform for the target's chat and thread; an edit changes a sent message, an edit that changes
 * nothing ("not modified") resolves, and delete removes the message.
 */
export function testTypingAndEditing<Fake extends ChannelFake>(options: LivenessCaseOptions<Fake>): void {
  const liveness = () => options.fake() as Fake & ChannelFakeLiveness;

  it("shows typing in the target's chat and thread (adapters with typing)", async () => {
    const { adapter, recording, close } = await startedAdapter(options);
    try {
      if (!adapter.typing) return;
      const fake = liveness();
      if (!fake.typingSeen) throw new Error("the adapter has typing: its fake must implement typingSeen()");
      const direct = await mappedEvent(
        recording,
        () => fake.deliver({ chatType: "direct", chatId: "typing-dm", userId: "u1", text: "hi" }),
        options.timeoutMs,
      );
      await adapter.typing.start(targetOf(direct));
      expect(fake.typingSeen()).toContainEqual(expect.objectContaining({ chatId: "typing-dm" }));
      await adapter.typing.stop?.(targetOf(direct));
      if (!adapter.capabilities.threads) return;
      const threaded = await mappedEvent(
        recording,
        () =>
          fake.deliver({
            chatType: "group",
            chatId: "typing-group",
            userId: "u1",
            text: "in a thread",
            threadId: "77",
            mentionBot: true,
          }),
        options.timeoutMs,
      );
      await adapter.typing.start(targetOf(threaded));
      expect(fake.typingSeen()).toContainEqual({ chatId: "typing-group", threadId: "77" });
      await adapter.typing.stop?.(targetOf(threaded));
    } finally {
      await close();
    }
  });

  it("edits a sent message, takes an unchanged edit as success, and deletes it (adapters with editing)", async () => {
    const { adapter, recording, close } = await startedAdapter(options);
    try {
      const editing = adapter.editing;
      if (!editing) return;
      const fake = liveness();
      if (!fake.sentMessage)
        throw new Error("the adapter has editing: its fake must implement sentMessage()");
      const event = await mappedEvent(
        recording,
        () => fake.deliver({ chatType: "direct", chatId: "edit-dm", userId: "u1", text: "hi" }),
        options.timeoutMs,
      );
      const target = targetOf(event);
      const { messageId } = await adapter.send(
        target,
        { text: "first version" },
        { idempotencyKey: "edit-1" },
      );
      if (!messageId) throw new Error("send must return the messageId of a message editing can change");
      await editing.edit(target, messageId, { text: "second version" });
      expect(fake.sentMessage(messageId)).toMatchObject({ text: "second version", deleted: false });
      // The platform answers "message is not modified": the adapter must take it as success.
      await editing.edit(target, messageId, { text: "second version" });
      if (!editing.delete) return;
      await editing.delete(target, messageId);
      expect(fake.sentMessage(messageId)?.deleted ?? true).toBe(true);
    } finally {
      await close();
    }
  });
}
