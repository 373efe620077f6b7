import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
  renderFeishuCard,
  renderFeishuCards,
  renderPlainText,
} from "@downcity/core";
import { withButtons } from "./feishu-reply-card.js";
import {
  type FeishuMessageBody,
  type FeishuSenderOptions,
  sendFeishuMessage,
  sendUuid,
} from "./feishu-sender.js";
import { uploadFeishuFile } from "./upload-feishu-file.js";

/** Lark's answers when a card itself is refused (invalid card content, content too long): text still goes. */
const cardRefusedCodes = /\(code (230099|230025|11310)\)|code (230099|230025|11310):/;

/** Called when a card was refused and the reply continues as plain text. */
export type CardFallbackListener = (details: { reason: string; chatId: string }) => void;

const isCardRefusal = (error: unknown) =>
  error instanceof ChannelSendError && error.permanent && cardRefusedCodes.test(error.message);

// A text message reads `<at user_id="all">` as a mention of everyone: the model's text must not.
const plainText = (markdown: string) => renderPlainText(markdown).replace(/<(\/?at\b)/gi, "<\u200b$1") || " ";

/**
 * Sends a reply: its Markdown rendered to interactive cards (Card JSON 2.0, chunked after rendering), the
 * buttons on the last card, then each file uploaded and sent as an image or file message. When Lark refuses a
 * card, that chunk and every later one go as plain text, so one reply never mixes cards after text. Each
 * message has its own `uuid` derived from the outbox key, so a retried reply sends nothing twice. Returns the
 * last text message (the one holding the buttons), which `editing` changes later.
 */
export async function sendFeishuReply(
  options: FeishuSenderOptions,
  target: ChannelTarget,
  message: ChannelMessage,
  idempotencyKey: string,
  onFallback?: CardFallbackListener,
): Promise<ChannelSendResult> {
  const cards = renderFeishuCards(message.text);
  const files = message.attachments ?? [];
  // No text: still one card when there is nothing else to send, or buttons to show.
  if (cards.length === 0 && (files.length === 0 || message.actions?.length))
    cards.push(renderFeishuCard(message.text));
  const uuid = (suffix: string) => sendUuid(suffix ? `${idempotencyKey}#${suffix}` : idempotencyKey);
  let asText = false;
  let result: ChannelSendResult = {};
  for (const [index, card] of cards.entries()) {
    const last = index === cards.length - 1;
    const markdown = card.body.elements[0].content;
    const textBody = (): FeishuMessageBody => ({
      msgType: "text",
      content: JSON.stringify({ text: plainText(markdown) }),
    });
    if (!asText)
      try {
        const content = JSON.stringify(withButtons(card, last ? message.actions : undefined));
        result = await sendFeishuMessage(
          options,
          target,
          { msgType: "interactive", content },
          uuid(index ? String(index) : ""),
        );
        continue;
      } catch (error) {
        if (!isCardRefusal(error)) throw error;
        asText = true;
        onFallback?.({ reason: (error as Error).message, chatId: target.chatId });
      }
    result = await sendFeishuMessage(options, target, textBody(), uuid(`${index}.text`));
  }
  for (const [index, file] of files.entries()) {
    const body = await uploadFeishuFile(options, file);
    const sent = await sendFeishuMessage(options, target, body, uuid(`file${index}`));
    if (cards.length === 0) result = sent;
  }
  return result;
}
