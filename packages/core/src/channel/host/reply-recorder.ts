import type { ChannelSender } from "../../chat/channel-sender.js";
import type { OutgoingFile } from "../../chat/outgoing-file.js";
import { DowncityError } from "../../errors/downcity-error.js";
import { chunkMarkdown } from "../../format/chunk-markdown.js";
import type { ChannelTarget, OutboxInput } from "../../store/outbox-store.js";
import type { ChannelDelivery } from "../delivery/channel-delivery.js";
import { splitText } from "./split-text.js";

/** Records replies in the outbox before any adapter sees them; see `createReplyRecorder`. */
export interface ReplyRecorder {
  /** Records `text` for `target`, split to the channel's length, under keys derived from `baseKey`. */
  record(
    channel: string,
    contextId: string,
    target: ChannelTarget,
    text: string,
    baseKey: string,
    files?: OutgoingFile[],
    actions?: OutboxInput["actions"],
  ): Promise<void>;
  /** The runtime's sender for `channel`: routes a run's reply to the chat (and thread) that asked. */
  sender(channel: string): ChannelSender;
}

/** The longest Markdown one outbox entry holds for an adapter that renders and chunks it itself. */
export const renderedReplyMax = 64 * 1024;

/**
 * Turns runtime replies into outbox chunks under the reply's own key (a run's replies carry
 * `<requestId>:<step>:<part>`; others are keyed `<trigger>#<n>`), one suffix per chunk, so a
 * resumed or replayed run finds what it already recorded and sends nothing twice.
 */
export function createReplyRecorder(options: {
  delivery: ChannelDelivery;
  /** The longest text the channel's adapter takes [4000 when it is not running]. */
  maxTextLength(channel: string): number | undefined;
  /** True when the channel's adapter sends files; false refuses a reply with files before it is recorded. */
  sendsFiles?(channel: string): boolean | undefined;
  /**
   * True when the channel's adapter renders Markdown and chunks the rendered output itself (Telegram
   * HTML, a Feishu card, QQ markdown): the host then leaves the Markdown whole (cut only past
   * `renderedReplyMax`, fences kept balanced), since cutting it first would break code fences.
   */
  renders?(channel: string): boolean | undefined;
  /**
   * True when the channel passes Markdown on as written (`format: "markdown"`, the webhook): it is
   * cut at the channel's limit with code fences closed and reopened, so each message renders alone.
   */
  writesMarkdown?(channel: string): boolean | undefined;
}): ReplyRecorder {
  const { delivery } = options;
  const record: ReplyRecorder["record"] = async (
    channel,
    contextId,
    target,
    text,
    baseKey,
    files,
    actions,
  ) => {
    if (files?.length && options.sendsFiles?.(channel) === false)
      throw new DowncityError("INVALID_INPUT", `channel "${channel}" cannot send files; send the text only`, {
        field: "files",
      });
    const max = options.maxTextLength(channel) ?? 4000;
    const chunks = options.renders?.(channel)
      ? chunkMarkdown(text, renderedReplyMax)
      : options.writesMarkdown?.(channel)
        ? chunkMarkdown(text, max)
        : splitText(text, max);
    // A reply of files only is one empty chunk that carries them.
    if (chunks.length === 0) chunks.push("");
    await delivery.record(
      chunks.map((chunk, index) => ({
        key: chunks.length === 1 ? baseKey : `${baseKey}.${index}`,
        channel,
        contextId,
        target,
        text: chunk,
        // The files and buttons go with the last chunk: after the text that introduces them.
        ...(files?.length && index === chunks.length - 1 ? { attachments: files } : {}),
        ...(actions?.length && index === chunks.length - 1 ? { actions } : {}),
      })),
    );
  };
  return {
    record,
    sender: (channel) => async (message) => {
      if (!message.chatId) return;
      const triggered = message.triggerMessageId
        ? await delivery.trigger(message.triggerMessageId)
        : undefined;
      // A message to another chat (`chat_send` with `to`) is no reply to this chat's message.
      const trigger =
        triggered?.channel === channel && triggered.message.chatId === message.chatId ? triggered : undefined;
      const target: ChannelTarget = {
        chatId: message.chatId,
        ...(trigger?.message.chatType ? { chatType: trigger.message.chatType } : {}),
        ...(message.threadId ? { threadId: message.threadId } : {}),
        ...(trigger?.message.platformMessageId
          ? { replyToMessageId: trigger.message.platformMessageId }
          : {}),
      };
      const base = message.key ?? `${message.triggerMessageId ?? message.requestId}#${message.sequence}`;
      await record(channel, message.contextId, target, message.text, base, message.files, message.actions);
    },
  };
}
