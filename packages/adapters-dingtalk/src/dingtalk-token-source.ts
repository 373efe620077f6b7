import { z } from "zod";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import { postJson } from "./dingtalk-http.js";

const tokenAnswerSchema = z.object({
  accessToken: z.string().min(1),
  expireIn: z.coerce.number().int().min(1),
});

/** Hands out the app's access token, fetching a new one ahead of expiry. */
export interface DingtalkTokenSource {
  /** A valid token (fetched when missing or near expiry); concurrent callers share one fetch. */
  token(): Promise<string>;
  /** Forgets the current token (after the platform called it invalid). */
  invalidate(): void;
}

/**
 * Creates the token source for `POST {apiBase}/v1.0/oauth2/accessToken {appKey, appSecret}` ->
 * `{accessToken, expireIn}` (seconds; 7200 for an internal app). The same token serves the classic API.
 */
export function createDingtalkTokenSource(options: {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  /** Refresh this long before expiry [5 min]. */
  refreshAheadMs?: number;
  now?: () => number;
}): DingtalkTokenSource {
  const now = options.now ?? Date.now;
  const ahead = options.refreshAheadMs ?? 300_000;
  let current: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const fetchToken = async (): Promise<string> => {
    const answer = await postJson<unknown>(
      "the DingTalk access token request (check clientId and clientSecret)",
      `${options.apiBase}/v1.0/oauth2/accessToken`,
      { appKey: options.clientId, appSecret: options.clientSecret },
    );
    const parsed = tokenAnswerSchema.safeParse(answer);
    if (!parsed.success)
      throw new DingtalkApiError(200, undefined, "the DingTalk access token answer has no accessToken");
    current = { token: parsed.data.accessToken, expiresAt: now() + parsed.data.expireIn * 1000 };
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
