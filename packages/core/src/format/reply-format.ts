/** What a chat renders of the Markdown the model writes (an adapter's `capabilities.format`). */
export type ReplyFormat = "plain" | "markdown" | "telegram-html" | "feishu-card" | "qq-markdown";
