import { WeixinApiError } from "./weixin-api-error.js";
import { weixinPost } from "./weixin-http.js";

/** What iLink said of a bot token: accepted, expired (a new scan is needed), or unknown (no answer). */
export type WeixinTokenVerdict =
  | { verdict: "valid" }
  | { verdict: "expired"; message: string }
  | { verdict: "unknown"; message: string };

/**
 * Asks iLink whether a bot token is accepted, with `getconfig` for the user who bound the bot: a call that
 * neither takes messages nor moves the getupdates cursor, so it is safe beside (or instead of) a poller.
 */
export async function verifyWeixinToken(input: {
  baseUrl: string;
  token: string;
  /** The WeChat user who scanned the code (the stored binding's `userId`). */
  userId?: string;
  botAgent?: string;
  timeoutMs?: number;
}): Promise<WeixinTokenVerdict> {
  try {
    await weixinPost(
      { baseUrl: input.baseUrl, token: input.token, botAgent: input.botAgent ?? "Downcity/0" },
      "ilink/bot/getconfig",
      { ilink_user_id: input.userId ?? "" },
      { timeoutMs: input.timeoutMs ?? 10_000 },
    );
    return { verdict: "valid" };
  } catch (error) {
    if (WeixinApiError.isInstance(error) && error.sessionExpired)
      return { verdict: "expired", message: error.message };
    return { verdict: "unknown", message: (error as Error).message };
  }
}
