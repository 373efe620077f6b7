import { z } from "zod";

/** GROUP_AND_C2C_EVENT: group @-messages and direct (C2C) messages. */
export const groupAndC2cIntent = 1 << 25;

/** The options of one QQ bot channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const qqOptionsSchema = z
  .object({
    appId: z
      .string()
      .regex(/^\d{5,20}$/, "expected the bot's AppID from q.qq.com (digits only)")
      .describe("The bot's AppID (q.qq.com -> Development -> Development settings)"),
    clientSecret: z
      .string()
      .min(8, "expected the AppSecret; write it as ${QQ_CLIENT_SECRET} and keep it in .env")
      .describe("The bot's AppSecret; write it as ${QQ_CLIENT_SECRET} and keep it in .env"),
    apiBase: z
      .url("expected a URL like https://api.sgroup.qq.com")
      .default("https://api.sgroup.qq.com")
      .transform((url) => url.replace(/\/+$/, ""))
      .describe("Root of the bot OpenAPI (https://sandbox.api.sgroup.qq.com for the sandbox)"),
    tokenUrl: z
      .url("expected a URL like https://bots.qq.com/app/getAppAccessToken")
      .default("https://bots.qq.com/app/getAppAccessToken")
      .describe("Where access tokens are issued"),
    mode: z
      .enum(["websocket", "webhook"])
      .default("websocket")
      .describe("websocket: the gateway connection; webhook: listen for the platform's signed POSTs"),
    intents: z
      .number()
      .int()
      .min(1)
      .default(groupAndC2cIntent)
      .describe("Websocket mode: the intents bitmask to identify with [1<<25: group @-messages and C2C]"),
    reconnectDelayMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(2000)
      .describe("Websocket mode: the first wait before reconnecting (doubles up to 60 s)"),
    markdown: z
      .boolean()
      .default(true)
      .describe(
        "Send replies as QQ markdown (msg_type 2) while the bot may; the first permission error switches to plain text [true]",
      ),
    downloadTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(60_000)
      .describe("Longest download of one incoming image, voice note, video or file [60000]"),
    listen: z
      .union([
        z.number().int().min(0).max(65535),
        z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/, "expected host:port, like 127.0.0.1:8443"),
      ])
      .optional()
      .describe("Webhook mode: where to listen, as a port (on 127.0.0.1) or host:port"),
    path: z
      .string()
      .regex(/^\/[\w\-./~]*$/, "expected a URL path starting with /")
      .default("/qq/events")
      .describe("Webhook mode: the path of the callback URL"),
    maxSignatureAgeSeconds: z
      .number()
      .int()
      .min(1)
      .default(600)
      .describe("Webhook mode: reject signed requests whose timestamp is further off than this (replays)"),
  })
  .superRefine((options, context) => {
    if (options.mode === "webhook" && options.listen === undefined)
      context.addIssue({
        code: "custom",
        path: ["listen"],
        message: 'webhook mode needs "listen" (a port or host:port for the callback server)',
      });
  });

/** Validated QQ channel options. */
export type QqOptions = z.output<typeof qqOptionsSchema>;

/** Splits `listen` into a host and a port (a bare port listens on loopback). */
export function parseListen(listen: number | string): { host: string; port: number } {
  if (typeof listen === "number") return { host: "127.0.0.1", port: listen };
  const colon = listen.lastIndexOf(":");
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  return { host, port: Number(listen.slice(colon + 1)) };
}
