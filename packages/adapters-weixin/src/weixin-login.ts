import { WeixinApiError } from "./weixin-api-error.js";
import { weixinGet, weixinPost } from "./weixin-http.js";
import { weixinDefaultBaseUrl } from "./weixin-options.js";

/** iLink's `bot_type` of an agent bot bound by QR code. */
export const weixinBotType = "3";

/** A QR code to scan: iLink's id for it (`qrcode`) and the text the picture encodes (`qrcode_img_content`). */
export interface WeixinQrCode {
  qrcode: string;
  /** What the QR picture holds (a URL WeChat opens); render it, or open it on the phone. */
  content: string;
}

/** Where a binding stands (`get_qrcode_status`). */
export type WeixinBindingStatus =
  | "wait"
  | "scaned"
  | "confirmed"
  | "expired"
  | "scaned_but_redirect"
  | "need_verifycode"
  | "verify_code_blocked"
  | "binded_redirect";

/** The end of a binding: a token, an expired code, an already bound bot, or a refusal. */
export type WeixinBindingResult =
  | { status: "confirmed"; botToken: string; baseUrl?: string; botId?: string; userId?: string }
  | { status: "expired" | "already-bound" | "blocked" | "timeout" };

/** Asks iLink for a fresh QR code to bind a bot (no token needed). */
export async function requestWeixinQrCode(baseUrl: string = weixinDefaultBaseUrl): Promise<WeixinQrCode> {
  const answer = await weixinPost<{ qrcode?: string; qrcode_img_content?: string }>(
    { baseUrl, botAgent: "Downcity/0" },
    `ilink/bot/get_bot_qrcode?bot_type=${weixinBotType}`,
    { local_token_list: [] },
  );
  if (!answer.qrcode || !answer.qrcode_img_content)
    throw new WeixinApiError(200, undefined, "get_bot_qrcode gave no QR code");
  return { qrcode: answer.qrcode, content: answer.qrcode_img_content };
}

interface StatusAnswer {
  status?: WeixinBindingStatus;
  bot_token?: string;
  ilink_bot_id?: string;
  baseurl?: string;
  ilink_user_id?: string;
  redirect_host?: string;
}

/** Options of `waitForWeixinBinding`. */
export interface WaitForBindingOptions {
  baseUrl?: string;
  /** Longest wait in all [8 min]. */
  timeoutMs?: number;
  /** Longest wait of one long poll [35 s]. */
  pollTimeoutMs?: number;
  signal?: AbortSignal;
  /** Pause between two status polls the server answered at once [1 s]. */
  intervalMs?: number;
  /** Told of each new status ("scaned": scanned, waiting for the confirmation on the phone). */
  onStatus?(status: WeixinBindingStatus): void;
  /** Asked for the digits the phone shows when iLink wants them (`need_verifycode`). */
  askVerifyCode?(retry: boolean): Promise<string>;
}

/**
 * Long-polls `get_qrcode_status` until the code is scanned and confirmed on the phone (the bot token, and
 * the API host to use it with), expires, or `timeoutMs` passes; follows iLink's redirect to another host.
 */
export async function waitForWeixinBinding(
  qrcode: string,
  options: WaitForBindingOptions = {},
): Promise<WeixinBindingResult> {
  let baseUrl = options.baseUrl ?? weixinDefaultBaseUrl;
  const deadline = Date.now() + (options.timeoutMs ?? 480_000);
  let last: WeixinBindingStatus | undefined;
  let verifyCode: string | undefined;
  while (Date.now() < deadline && !options.signal?.aborted) {
    const query = `qrcode=${encodeURIComponent(qrcode)}${verifyCode ? `&verify_code=${encodeURIComponent(verifyCode)}` : ""}`;
    let answer: StatusAnswer;
    try {
      answer = await weixinGet<StatusAnswer>(baseUrl, `ilink/bot/get_qrcode_status?${query}`, {
        timeoutMs: Math.min(options.pollTimeoutMs ?? 35_000, Math.max(1000, deadline - Date.now())),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) break;
      // A long poll that ran out, or a gateway hiccup: ask again after a moment.
      if (WeixinApiError.isInstance(error) && (error.status === 0 || error.status >= 500)) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      throw error;
    }
    const status = answer.status ?? "wait";
    if (status !== last) options.onStatus?.(status);
    last = status;
    if (status === "confirmed") {
      if (!answer.bot_token)
        throw new WeixinApiError(200, undefined, "the binding was confirmed without a bot token");
      return {
        status,
        botToken: answer.bot_token,
        ...(answer.baseurl ? { baseUrl: answer.baseurl.replace(/\/+$/, "") } : {}),
        ...(answer.ilink_bot_id ? { botId: answer.ilink_bot_id } : {}),
        ...(answer.ilink_user_id ? { userId: answer.ilink_user_id } : {}),
      };
    }
    if (status === "expired") return { status: "expired" };
    if (status === "binded_redirect") return { status: "already-bound" };
    if (status === "verify_code_blocked") return { status: "blocked" };
    if (status === "scaned_but_redirect" && answer.redirect_host) baseUrl = `https://${answer.redirect_host}`;
    if (status === "need_verifycode") {
      if (!options.askVerifyCode) return { status: "blocked" };
      verifyCode = await options.askVerifyCode(verifyCode !== undefined);
      continue;
    }
    if (status === "scaned") verifyCode = undefined;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
  }
  return { status: "timeout" };
}
