import type { ReplyFormat } from "../format/reply-format.js";

/** What a chat shows of a reply: how it renders the model's Markdown, its length limit, whether files go out. */
export interface ChannelRendering {
  format: ReplyFormat;
  maxTextLength: number;
  sendsFiles: boolean;
}

const formatLines: Record<ChannelRendering["format"], string> = {
  plain:
    "this chat shows plain text only: write no Markdown (no #, **, backticks or tables); use plain lines and lists with - ",
  markdown:
    "this chat renders Markdown (CommonMark): headings, bold, italic, links, lists, code and fenced code blocks, tables",
  "telegram-html":
    "this chat renders Markdown: bold, italic, links, inline code, fenced code blocks, quotes; headings show as bold lines and tables as monospace blocks",
  "feishu-card": "this chat renders Markdown: headings, bold, italic, links, lists, code blocks and tables",
  "qq-markdown":
    "this chat renders Markdown where the bot may (headings, bold, links, lists, code), else plain text: keep the Markdown simple",
};

/**
 * The runtime note's lines about the chat the run answers: how its replies render, how long one
 * message may be, and whether `chat_send` can attach files there.
 */
export function channelRenderingLines(rendering: ChannelRendering): string[] {
  return [
    `- formatting: ${formatLines[rendering.format]}`,
    `- message length: at most ${rendering.maxTextLength} characters a message; longer replies are split`,
    rendering.sendsFiles
      ? "- files: chat_send can send project files here (files: [paths])"
      : "- files: this chat cannot receive files; describe them or give their path instead",
  ];
}
