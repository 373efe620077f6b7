import { createHash } from "node:crypto";
import { type ChannelContext, type ChannelState, createRetryBackoff, errorFields } from "@downcity/core";
import { createCursorStore } from "./cursor-store.js";
import { WeixinApiError } from "./weixin-api-error.js";
import { type WeixinConnection, weixinPost } from "./weixin-http.js";
import { getUpdatesAnswerSchema } from "./weixin-message.js";
import type { WeixinOptions } from "./weixin-options.js";

/** A running long poll; `stop` ends it and waits for the accept in flight. */
export interface WeixinPoller {
  stop(): Promise<void>;
}

/** What the poll loop needs. */
export interface WeixinPollerOptions {
  options: WeixinOptions;
  context: ChannelContext;
  /** The bot's connection as it stands now (the token may arrive or change while the loop runs). */
  connection(): Promise<WeixinConnection | undefined>;
  /** Hands one message to the inbox; throws when it was not durably accepted (the cursor then stays). */
  take(message: unknown): Promise<void>;
}

// The cursor belongs to one binding: a key derived from its token (never the token itself).
const bindingKey = (token: string) => createHash("sha256").update(token).digest("hex").slice(0, 16);

/** The text `channels list` and doctor show for a binding that needs a new scan. */
export function rebindAdvice(channel: string, reason: string): string {
  return `${reason}: scan a new QR code with \`downcity channels login ${channel}\` or on the web console's Channels page (WeChat 8.0.70 or later); the channel resumes by itself once it is bound`;
}

/**
 * Long-polls `getupdates` with the saved cursor: every message of an answer is accepted into the inbox
 * before the answer's new cursor is saved and sent (which is what tells iLink they arrived), so a crash
 * in between costs a redelivery the inbox deduplicates, never a lost message. Failures back off
 * exponentially; an expired token (errcode -14) is reported as failed with the re-binding advice.
 */
export function startWeixinPoller(poller: WeixinPollerOptions): WeixinPoller {
  const { options, context } = poller;
  const log = { channel: context.channel };
  const cursors = createCursorStore(context.stateDir);
  const backoff = createRetryBackoff({
    initialMs: options.reconnectDelayMs,
    maxMs: options.maxReconnectDelayMs,
  });
  const abort = new AbortController();
  let state: { value: ChannelState; error?: string } | undefined;
  const report = (value: ChannelState, error?: string) => {
    if (state?.value === value && state.error === error) return;
    state = { value, ...(error ? { error } : {}) };
    context.setState(value, error);
    if (error) context.logger[value === "failed" ? "error" : "warn"]({ ...log }, error);
  };

  const loop = async () => {
    let binding: string | undefined;
    let cursor = "";
    let expired: string | undefined;
    let timeoutMs = options.pollTimeoutMs;
    while (!abort.signal.aborted) {
      const connection = await poller.connection();
      if (!connection?.token || connection.token === expired) {
        report(
          "failed",
          rebindAdvice(
            context.channel,
            connection?.token ? "the WeChat bot token expired" : "no WeChat bot is bound",
          ),
        );
        await backoff.wait(abort.signal, Math.min(options.maxReconnectDelayMs, 5000));
        continue;
      }
      const key = bindingKey(connection.token);
      if (key !== binding) {
        binding = key;
        cursor = await cursors.load(key).catch(() => "");
        context.logger.info({ ...log, resumed: cursor !== "" }, "WeChat polling started");
      }
      let answer: ReturnType<typeof getUpdatesAnswerSchema.parse>;
      try {
        answer = getUpdatesAnswerSchema.parse(
          await weixinPost(
            connection,
            "ilink/bot/getupdates",
            { get_updates_buf: cursor },
            {
              timeoutMs: timeoutMs + 5000,
              signal: abort.signal,
            },
          ),
        );
      } catch (error) {
        if (abort.signal.aborted) break;
        if (WeixinApiError.isInstance(error) && error.sessionExpired) {
          expired = connection.token;
          continue;
        }
        report("retrying", `WeChat getupdates failed (${(error as Error).message}); retrying with backoff`);
        await backoff.wait(abort.signal, WeixinApiError.isInstance(error) ? error.retryAfterMs : undefined);
        continue;
      }
      report("connected");
      backoff.reset();
      if (answer.longpolling_timeout_ms && answer.longpolling_timeout_ms > 0)
        timeoutMs = Math.min(answer.longpolling_timeout_ms, 120_000);
      let failed = false;
      for (const message of answer.msgs ?? []) {
        try {
          await poller.take(message);
        } catch (error) {
          // Not saved nor sent: the next getupdates asks with the old cursor, so iLink delivers it again.
          context.logger.error(
            { ...log, ...errorFields(error) },
            "the inbox did not accept a WeChat message",
          );
          report("retrying", `the inbox did not accept a WeChat message: ${(error as Error).message}`);
          failed = true;
          break;
        }
      }
      if (!failed && answer.get_updates_buf && answer.get_updates_buf !== cursor) {
        cursor = answer.get_updates_buf;
        await cursors.save(key, cursor).catch((error: unknown) => {
          // Only costs a redelivery after a restart, which the inbox dedupes.
          context.logger.warn({ ...log, ...errorFields(error) }, "could not save the WeChat cursor");
        });
      }
      if (failed) await backoff.wait(abort.signal);
    }
  };

  const running = loop().catch((error: unknown) => {
    report("failed", `WeChat polling stopped: ${(error as Error).message}`);
  });
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
