import { randomBytes } from "node:crypto";
import { WeixinApiError } from "./weixin-api-error.js";

/** Where and as whom an iLink call goes: the API root, the bot token (absent while binding) and the agent string. */
export interface WeixinConnection {
  baseUrl: string;
  token?: string;
  botAgent: string;
}

/** The app id and client version headers iLink expects of a bot client. */
const appHeaders = { "iLink-App-Id": "bot", "iLink-App-ClientVersion": String((1 << 16) | 0) };

// iLink ids are uint64: quoted before JSON.parse so no digit is lost (escaped quotes inside strings never match).
const losslessIds = /"(message_id|msg_id|svr_id)"\s*:\s*(-?\d+)/g;

/** Parses an iLink JSON answer, keeping its uint64 ids as strings. */
export function parseWeixinJson(text: string): unknown {
  return JSON.parse(text.replace(losslessIds, '"$1":"$2"'));
}

/** X-WECHAT-UIN: a random uint32, as decimal text, base64-encoded (a fresh one per request). */
export function randomWechatUin(): string {
  return Buffer.from(String(randomBytes(4).readUInt32BE(0)), "utf8").toString("base64");
}

/** The headers of an authenticated iLink POST. */
export function weixinHeaders(token: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    AuthorizationType: "ilink_bot_token",
    "X-WECHAT-UIN": randomWechatUin(),
    ...appHeaders,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
}

/** The error iLink put in a 200 answer (`ret` or `errcode` not 0), if any. */
function answerError(answer: unknown, what: string): WeixinApiError | undefined {
  const fields = (answer ?? {}) as { ret?: unknown; errcode?: unknown; errmsg?: unknown };
  const code = [fields.errcode, fields.ret].find((value) => typeof value === "number" && value !== 0);
  if (code === undefined) return undefined;
  const message = typeof fields.errmsg === "string" && fields.errmsg ? `: ${fields.errmsg}` : "";
  return new WeixinApiError(200, code as number, `${what} failed (ret ${code})${message}`);
}

async function call(
  what: string,
  url: string,
  init: RequestInit,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal });
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted)
      throw new WeixinApiError(0, undefined, `${what} timed out`);
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new WeixinApiError(0, undefined, `${what} failed: ${reason}`);
  }
  const text = await response.text();
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
    throw new WeixinApiError(
      response.status,
      undefined,
      `${what} answered HTTP ${response.status}`,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? Math.ceil(retryAfter * 1000) : undefined,
    );
  }
  let answer: unknown;
  try {
    answer = text ? parseWeixinJson(text) : {};
  } catch {
    throw new WeixinApiError(response.status, undefined, `${what} answered something that is not JSON`);
  }
  const error = answerError(answer, what);
  if (error) throw error;
  return answer;
}

/**
 * POSTs JSON to an iLink endpoint (`ilink/bot/<name>`) with the bot headers and `base_info`, and returns the
 * answer; throws `WeixinApiError` for no answer, an HTTP error, or a `ret`/`errcode` other than 0.
 */
export async function weixinPost<T>(
  connection: WeixinConnection,
  endpoint: string,
  body: Record<string, unknown>,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const payload = { ...body, base_info: { channel_version: "downcity", bot_agent: connection.botAgent } };
  return (await call(
    endpoint,
    `${connection.baseUrl}/${endpoint}`,
    { method: "POST", headers: weixinHeaders(connection.token), body: JSON.stringify(payload) },
    { timeoutMs: options.timeoutMs ?? 15_000, ...(options.signal ? { signal: options.signal } : {}) },
  )) as T;
}

/** GETs an iLink endpoint without a token (the QR binding calls). */
export async function weixinGet<T>(
  baseUrl: string,
  endpoint: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  return (await call(
    endpoint.split("?")[0] as string,
    `${baseUrl}/${endpoint}`,
    { method: "GET", headers: appHeaders },
    { timeoutMs: options.timeoutMs ?? 15_000, ...(options.signal ? { signal: options.signal } : {}) },
  )) as T;
}
