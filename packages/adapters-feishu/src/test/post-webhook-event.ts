import { randomUUID } from "node:crypto";
import { encryptLarkBody, signLarkBody } from "./lark-envelope.js";

/** Where a webhook-mode fake posts events, and how Lark would sign and encrypt them. */
export interface WebhookTarget {
  url: string;
  encryptKey?: string;
}

/** What the receiver made of a pushed event: acknowledged or not, and what it answered (a card callback's toast). */
export interface PushOutcome {
  acked: boolean;
  answer?: Record<string, unknown>;
}

/**
 * Posts one event as Lark does in webhook mode: encrypted and signed (`X-Lark-Signature` over timestamp, nonce,
 * Encrypt Key and body) when the target has an Encrypt Key; a refused connection (the listener still starting)
 * is retried until the deadline.
 */
export async function postWebhookEvent(
  target: WebhookTarget,
  payload: string,
  deadline: number,
): Promise<PushOutcome> {
  const body = target.encryptKey
    ? JSON.stringify({ encrypt: encryptLarkBody(target.encryptKey, payload) })
    : payload;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (target.encryptKey) {
    headers["x-lark-request-timestamp"] = timestamp;
    headers["x-lark-request-nonce"] = nonce;
    headers["x-lark-signature"] = signLarkBody(timestamp, nonce, target.encryptKey, body);
  }
  for (;;) {
    try {
      const response = await fetch(target.url, {
        method: "POST",
        body,
        headers,
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      const text = await response.text();
      const answer = safeObject(text);
      return { acked: response.status === 200, ...(answer ? { answer } : {}) };
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNREFUSED" || Date.now() > deadline)
        return { acked: false };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** A JSON object from text, or undefined. */
export function safeObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && Object.keys(value).length > 0
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
