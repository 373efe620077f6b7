import type { Client } from "@larksuiteoapi/node-sdk";
import { cardText } from "./card-text.js";
import { readFeishuContent } from "./read-feishu-content.js";

/** How long the quote of a reply may delay its event's acceptance before it is left out. */
const quoteTimeoutMs = 2000;

/**
 * The text of the message a reply quotes (`parent_id`), read with `GET /open-apis/im/v1/messages/:message_id`:
 * its text, a post's text, a card's markdown, and a short note per file. `undefined` when Lark does not answer
 * in time or refuses (the reply still reaches the agent, without its quote).
 */
export async function quotedText(client: Client, messageId: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), quoteTimeoutMs);
  });
  const asked = client.im.v1.message
    .get({ path: { message_id: messageId } })
    .then((answer) => {
      const item = answer.data?.items?.[0];
      if (answer.code !== 0 || !item?.msg_type || !item.body?.content) return undefined;
      if (item.msg_type === "interactive") return cardText(item.body.content);
      const reading = readFeishuContent(item.msg_type, item.body.content);
      if (!reading) return undefined;
      const notes = reading.attachments.map((attachment) => `[${attachment.name ?? attachment.kind}]`);
      return (
        [reading.text, ...notes]
          .filter(Boolean)
          .join("\n")
          .slice(0, 16 * 1024) || undefined
      );
    })
    .catch(() => undefined);
  try {
    return await Promise.race([asked, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
