import { z } from "zod";

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** The options of one DingTalk robot channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const dingtalkOptionsSchema = z.object({
  clientId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/, "expected the app's Client ID (AppKey), like dingxxxxxxxxxxxxxxxx")
    .describe("The app's Client ID, formerly AppKey (open-dev.dingtalk.com -> the app -> Credentials)"),
  clientSecret: z
    .string()
    .min(16, "expected the Client Secret; write it as ${DINGTALK_CLIENT_SECRET} and keep it in .env")
    .describe(
      "The app's Client Secret (AppSecret); write it as ${DINGTALK_CLIENT_SECRET} and keep it in .env",
    ),
  robotCode: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/, "expected the robot's RobotCode (for an internal app, its Client ID)")
    .optional()
    .describe("The robot's RobotCode [the Client ID, which it is for a robot of an internal app]"),
  apiBase: z
    .url("expected a URL like https://api.dingtalk.com")
    .default("https://api.dingtalk.com")
    .transform(trimSlash)
    .describe(
      "Root of the new OpenAPI: access tokens, the Stream gateway (/v1.0/gateway/connections/open), robot sends and downloads",
    ),
  oapiBase: z
    .url("expected a URL like https://oapi.dingtalk.com")
    .default("https://oapi.dingtalk.com")
    .transform(trimSlash)
    .describe("Root of the classic API, where media are uploaded (/media/upload)"),
  markdown: z
    .boolean()
    .default(true)
    .describe("Send replies as sampleMarkdown (a refused one is resent as sampleText) [true]"),
  reconnectDelayMs: z
    .number()
    .int()
    .min(10)
    .max(600_000)
    .default(1000)
    .describe("The first wait before reconnecting the stream (doubles up to 60 s) [1000]"),
  keepAliveMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(8000)
    .describe(
      "How often the stream is pinged; a ping not answered by the next one drops the connection [8000]",
    ),
  downloadTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(60_000)
    .describe("Longest download of one incoming picture, voice note, video or file [60000]"),
});

/** Validated DingTalk channel options. */
export type DingtalkOptions = z.output<typeof dingtalkOptionsSchema>;

/** The robot code sends and downloads name: the configured one, else the Client ID. */
export const robotCodeOf = (options: DingtalkOptions): string => options.robotCode ?? options.clientId;
