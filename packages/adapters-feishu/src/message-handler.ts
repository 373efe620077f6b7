import type { ChannelContext } from "@downcity/core";
import { feishuMessageEventSchema, mapFeishuMessage } from "./map-feishu-message.js";

/** Hands Lark message events to the inbox and tracks the accepts still in flight. */
export interface MessageHandler {
  /** The SDK event handler for `im.message.receive_v1`: resolves once the inbox took the event, throws otherwise. */
  handle(data: unknown): Promise<void>;
  /** Resolves when every accept begun so far has settled. */
  drain(): Promise<void>;
}

/**
 * Creates the handler both modes register with the SDK's dispatcher. It only maps and accepts (the agent runs
 * later), so the acknowledgement leaves well within Lark's 3 s; a throw means no positive ack, so Lark redelivers.
 * Events are taken one at a time in arrival order (the SDK would otherwise run handlers concurrently).
 */
export function createMessageHandler(
  context: ChannelContext,
  botOpenId: () => Promise<string>,
): MessageHandler {
  const inFlight = new Set<Promise<unknown>>();
  const handle = async (data: unknown) => {
    const parsed = feishuMessageEventSchema.safeParse(data);
    if (!parsed.success) {
      // Redelivering a malformed event cannot fix it: acknowledge and say so.
      context.logger.warn(
        { channel: context.channel, issue: parsed.error.issues[0]?.path.join(".") },
        "ignored a Lark message event without the expected fields",
      );
      return;
    }
    // The bot's open_id is only needed to read mentions; without it (token trouble) the event is not acked.
    const bot = (parsed.data.message.mentions?.length ?? 0) > 0 ? await botOpenId() : undefined;
    const event = mapFeishuMessage(parsed.data, bot);
    if (!event) return;
    await context.inbox.accept({ ...event, raw: data });
  };
  // One at a time, in arrival order: the inbox sees a chat's messages in the order Lark pushed them.
  let tail: Promise<unknown> = Promise.resolve();
  return {
    handle(data) {
      const task = tail.then(() => handle(data));
      tail = task.catch(() => undefined);
      inFlight.add(task);
      void task.then(
        () => inFlight.delete(task),
        () => inFlight.delete(task),
      );
      return task;
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
