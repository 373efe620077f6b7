import { writeWeixinCredentials } from "./weixin-credentials.js";
import {
  requestWeixinQrCode,
  type WeixinBindingResult,
  type WeixinBindingStatus,
  type WeixinQrCode,
  waitForWeixinBinding,
} from "./weixin-login.js";

/** Options of `bindWeixinChannel`: where to bind, where to store the token, and who shows the code. */
export interface BindWeixinChannelOptions {
  /** The channel's iLink API root (`baseUrl` of its options). */
  baseUrl: string;
  /** The channel's private state folder (`weixinChannelStateDir`), where the adapter reads the token. */
  stateDir: string;
  /** Codes to show before giving up: each expired one is replaced by a new one [1]. */
  maxQrCodes?: number;
  /** Longest wait for the scan and the confirmation, per code [8 min]. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Pause between two status polls the server answered at once [1 s]. */
  intervalMs?: number;
  /** Shows a code to scan (`shown` counts from 1). */
  onQrCode(code: WeixinQrCode, shown: number): void;
  /** Told of each new status of the code shown last. */
  onStatus?(status: WeixinBindingStatus, shown: number): void;
  /** Asked for the digits the phone shows; without it such a binding ends as `blocked`. */
  askVerifyCode?(retry: boolean): Promise<string>;
}

/** How a channel binding ended: the stored token's file, or why there is none. */
export type WeixinChannelBinding =
  | { status: "confirmed"; credentialsFile: string; botId?: string; userId?: string }
  | { status: Exclude<WeixinBindingResult["status"], "confirmed"> | "cancelled" };

/**
 * Binds a WeChat channel by QR code, the one flow `downcity channels login` and the web console share:
 * asks iLink for a code, waits for the scan and the confirmation, and stores the bot token (and the host
 * the binding named) in the channel's state folder with mode 0600, where the adapter picks it up.
 */
export async function bindWeixinChannel(options: BindWeixinChannelOptions): Promise<WeixinChannelBinding> {
  const maxQrCodes = options.maxQrCodes ?? 1;
  let result: WeixinBindingResult = { status: "expired" };
  for (let shown = 1; shown <= maxQrCodes && result.status === "expired"; shown++) {
    if (options.signal?.aborted) return { status: "cancelled" };
    const code = await requestWeixinQrCode(options.baseUrl);
    options.onQrCode(code, shown);
    result = await waitForWeixinBinding(code.qrcode, {
      baseUrl: options.baseUrl,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.askVerifyCode ? { askVerifyCode: options.askVerifyCode } : {}),
      onStatus: (status) => options.onStatus?.(status, shown),
    });
  }
  if (options.signal?.aborted && result.status !== "confirmed") return { status: "cancelled" };
  if (result.status !== "confirmed") return { status: result.status };
  const credentialsFile = await writeWeixinCredentials(options.stateDir, {
    botToken: result.botToken,
    ...(result.baseUrl ? { baseUrl: result.baseUrl } : {}),
    ...(result.botId ? { botId: result.botId } : {}),
    ...(result.userId ? { userId: result.userId } : {}),
    boundAt: new Date().toISOString(),
  });
  return {
    status: "confirmed",
    credentialsFile,
    ...(result.botId ? { botId: result.botId } : {}),
    ...(result.userId ? { userId: result.userId } : {}),
  };
}
