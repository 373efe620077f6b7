import { z } from "zod";
import { QqApiError } from "./qq-api-error.js";

const tokenAnswerSchema = z.object({
  access_token: z.string().min(1),
  // The platform sends the lifetime as a string ("7200"); accept a number too.
  expires_in: z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(Number),
});

/** Hands out the bot's access token, fetching a new one ahead of expiry. */
export interface QqTokenSource {
  /** A valid token (fetched when missing or within `refreshAheadMs` of expiry); concurrent callers share one fetch. */
  token(): Promise<string>;
  /** Forgets the current token (after the platform called it invalid). */
  invalidate(): void;
}

/** Creates the token source for `POST tokenUrl {appId, clientSecret}` -> `{access_token, expires_in}`. */
export function createQqTokenSource(options: {
  tokenUrl: string;
  appId: string;
  clientSecret: string;
  /** Refresh this long before expiry [60 s]. */
  refreshAheadMs?: number;
  now?: () => number;
}): QqTokenSource {
  const now = options.now ?? Date.now;
  const ahead = options.refreshAheadMs ?? 60_000;
  let current: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const fetchToken = async (): Promise<string> => {
    let response: Response;
    try {
      response = await fetch(options.tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ appId: options.appId, clientSecret: options.clientSecret }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new QqApiError(0, undefined, `QQ access token request failed: ${reason}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const parsed = tokenAnswerSchema.safeParse(body);
    if (!response.ok || !parsed.success) {
      const message = (body as { message?: unknown } | undefined)?.message;
      const code = (body as { code?: unknown } | undefined)?.code;
      throw new QqApiError(
        response.status,
        typeof code === "number" ? code : undefined,
        `QQ access token request answered ${response.status}${typeof message === "string" ? `: ${message}` : ""} (check appId and clientSecret)`,
      );
    }
    current = { token: parsed.data.access_token, expiresAt: now() + parsed.data.expires_in * 1000 };
    return current.token;
  };

  return {
    token() {
      if (current && current.expiresAt - ahead > now()) return Promise.resolve(current.token);
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      current = undefined;
    },
  };
}
