import { z } from "zod";

/** The SDK's default endpoint of the intelligent-bot long connection. */
export const wecomDefaultWsUrl = "wss://openws.work.weixin.qq.com";

/** The options of one WeCom intelligent-bot channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const wecomOptionsSchema = z.object({
  botId: z
    .string()
    .regex(
      /^[\w-]{8,64}$/,
      "expected the bot's Bot ID from the WeCom admin console (letters, digits, - and _)",
    )
    .describe("The intelligent bot's Bot ID (admin console -> 智能机器人 -> API mode: long connection)"),
  secret: z
    .string()
    .min(16, "expected the bot's Secret; write it as ${WECOM_BOT_SECRET} and keep it in .env")
    .describe(
      "The bot's Secret for the long connection; write it as ${WECOM_BOT_SECRET} and keep it in .env",
    ),
  wsUrl: z
    .string()
    .regex(
      /^wss?:\/\/[^\s/]+(\/\S*)?$/,
      "expected a ws:// or wss:// URL like wss://openws.work.weixin.qq.com",
    )
    .default(wecomDefaultWsUrl)
    .describe("The long-connection endpoint (privately deployed WeCom shows its own in the admin console)"),
  botName: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "The bot's display name, to strip its @mention from group messages (else a leading @word is stripped)",
    ),
  thinkingText: z
    .string()
    .min(1)
    .max(200)
    .default("…")
    .describe(
      "What the streamed reply bubble shows while the agent works, before the answer replaces it […]",
    ),
  reconnectDelayMs: z
    .number()
    .int()
    .min(10)
    .max(30_000)
    .default(1000)
    .describe("The first wait before reconnecting; the SDK doubles it up to 30 s [1000]"),
  heartbeatMs: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(30_000)
    .describe("Heartbeat interval; two missed answers count the connection as dead [30000]"),
  rateLimitRetryMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(1000)
    .describe("How long to wait before retrying a send WeCom refused as too frequent (errcode 45009) [1000]"),
  downloadTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(60_000)
    .describe("Longest download of one incoming image, file or video [60000]"),
});

/** Validated WeCom channel options. */
export type WecomOptions = z.output<typeof wecomOptionsSchema>;
