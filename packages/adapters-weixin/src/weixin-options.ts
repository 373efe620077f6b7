import { z } from "zod";

/** Where Tencent's iLink bot API answers (QR binding starts here; a binding may name another host). */
export const weixinDefaultBaseUrl = "https://ilinkai.weixin.qq.com";
/** Where WeChat's CDN keeps encrypted media. */
export const weixinDefaultCdnBaseUrl = "https://novac2c.cdn.weixin.qq.com/c2c";

const url = (example: string) =>
  z
    .url(`expected a URL like ${example}`)
    .transform((value) => value.replace(/\/+$/, ""))
    .default(example);

/** The options of one WeChat channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const weixinOptionsSchema = z.object({
  token: z
    .string()
    .regex(/^\S{16,}$/, "expected the bot token from `downcity channels login <name>` (no spaces)")
    .optional()
    .describe(
      "The bot token; usually left out: `downcity channels login <name>` stores it in the channel's private state",
    ),
  baseUrl: url(weixinDefaultBaseUrl).describe(
    "Root of the iLink bot API (the binding's own host, when login returned one, wins)",
  ),
  cdnBaseUrl: url(weixinDefaultCdnBaseUrl).describe("Root of WeChat's media CDN"),
  pollTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(120_000)
    .default(35_000)
    .describe("Longest wait of one getupdates long poll before asking again [35000]"),
  reconnectDelayMs: z
    .number()
    .int()
    .min(10)
    .max(600_000)
    .default(2000)
    .describe("First wait after a failed poll (doubles up to maxReconnectDelayMs) [2000]"),
  maxReconnectDelayMs: z
    .number()
    .int()
    .min(10)
    .max(3_600_000)
    .default(60_000)
    .describe("Longest wait between failed polls [60000]"),
  downloadTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(60_000)
    .describe("Longest download of one incoming image, voice note or file [60000]"),
  mentionNames: z
    .array(z.string().min(1).max(64))
    .default([])
    .describe(
      'Group chats: the bot\'s display names; "@<name>" at the start of a message counts as a mention [none]',
    ),
  botAgent: z
    .string()
    .regex(/^[\x20-\x7e]{1,256}$/, "expected an ASCII product token like Downcity/1.0")
    .default("Downcity/0")
    .describe("What the bot tells iLink it is (base_info.bot_agent; for Tencent's logs only)"),
});

/** Validated WeChat channel options. */
export type WeixinOptions = z.output<typeof weixinOptionsSchema>;
