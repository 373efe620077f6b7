import { request } from "node:http";
import type { Update } from "grammy/types";

/** How the fake Bot API pushes updates to a registered webhook, as Telegram does. */
export interface FakeWebhookDelivery {
  /** Queues an update: POSTed with the secret header, retried with backoff until a 2xx answer. */
  send(update: Update, hook: { url: string; secret_token?: string }): void;
  /** True once a POST of this update was answered 2xx. */
  acked(updateId: number): boolean;
  /** Status codes the webhook answered for this update, in order (0 for a failed connection). */
  answers(updateId: number): number[];
  close(): void;
}

/** Delivers one update at a time, in order (Telegram with max_connections 1), retrying until 2xx. */
export function createFakeWebhookDelivery(): FakeWebhookDelivery {
  const acked = new Set<number>();
  const answers = new Map<number, number[]>();
  let chain = Promise.resolve();
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();

  const post = (update: Update, hook: { url: string; secret_token?: string }) =>
    new Promise<number>((resolve) => {
      const body = JSON.stringify(update);
      const url = new URL(hook.url);
      const call = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent: false,
          timeout: 30_000,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            ...(hook.secret_token ? { "x-telegram-bot-api-secret-token": hook.secret_token } : {}),
          },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", () => resolve(0));
        },
      );
      call.on("timeout", () => call.destroy(new Error("timeout")));
      call.on("error", () => resolve(0));
      call.end(body);
    });
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  return {
    send(update, hook) {
      chain = chain.then(async () => {
        for (let attempt = 0; !closed; attempt++) {
          const status = await post(update, hook);
          answers.set(update.update_id, [...(answers.get(update.update_id) ?? []), status]);
          if (status >= 200 && status < 300) {
            acked.add(update.update_id);
            return;
          }
          await pause(Math.min(50 * 2 ** attempt, 1000));
        }
      });
    },
    acked: (updateId) => acked.has(updateId),
    answers: (updateId) => [...(answers.get(updateId) ?? [])],
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
