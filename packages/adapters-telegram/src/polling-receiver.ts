import type { ChannelContext } from "@downcity/core";
import {
  createRetryBackoff,
  errorFields,
  openFileChannelState,
  type RetryBackoffOptions,
} from "@downcity/core";
import type { Api } from "grammy";
import { acceptUpdate } from "./accept-update.js";
import type { TelegramFileDownload } from "./map-telegram-attachments.js";
import type { TelegramBotIdentity } from "./map-telegram-update.js";
import { createOffsetStore } from "./offset-store.js";
import { telegramAllowedUpdates } from "./telegram-allowed-updates.js";
import { describeTelegramError, type TelegramFailure } from "./telegram-error.js";

/** The signal type grammY's methods declare. */
export type GrammySignal = NonNullable<Parameters<Api["getMe"]>[0]>;

/** A running receiver; `stop` ends the long poll, waits for the accept in flight and saves the offset. */
export interface TelegramReceiver {
  stop(): Promise<void>;
}

/** What the polling loop needs. */
export interface PollingReceiverOptions {
  api: Api;
  token: string;
  context: ChannelContext;
  pollTimeoutSeconds: number;
  backoff: RetryBackoffOptions;
  /** Called once getMe has answered, before the first poll. */
  onIdentity(bot: TelegramBotIdentity): void;
  /** How incoming files are downloaded (the attachments' `fetch`). */
  download?: TelegramFileDownload;
}

/**
 * Long-polls getUpdates with its own loop: each update is accepted into the inbox before the next offset
 * is requested (which is what confirms it to Telegram), and the offset is saved before it is sent.
 */
export function startPollingReceiver(options: PollingReceiverOptions): TelegramReceiver {
  const { api, token, context } = options;
  const log = { channel: context.channel };
  const offsets = createOffsetStore(context.state ?? openFileChannelState(context.stateDir));
  const backoff = createRetryBackoff(options.backoff);
  const abort = new AbortController();
  // grammY types its signal parameter with an AbortSignal polyfill; the native signal works at runtime.
  const signal = abort.signal as unknown as GrammySignal;
  let state: "connected" | "retrying" | "failed" | undefined;

  const report = (next: "connected" | "retrying" | "failed", error?: string) => {
    if (next === state && next === "connected") return;
    state = next;
    context.setState(next, error);
  };

  // Explains a failed call, reports it and waits before the next attempt (honouring a 429's retry_after).
  const recover = async (failure: TelegramFailure, during: string) => {
    if (failure.status === 409) {
      const message =
        "Telegram answered 409 Conflict: another process is polling this bot token, or a webhook is set. Stop the other instance (or delete the webhook); retrying with backoff.";
      report("retrying", message);
      context.logger.warn({ ...log, during }, message);
    } else if (failure.status === 401 || failure.status === 404) {
      const message = `Telegram rejected the bot token (${failure.status}) during ${during}: check channels.${context.channel}.token (from @BotFather); retrying slowly.`;
      report("failed", message);
      context.logger.error({ ...log, during }, message);
      await backoff.wait(abort.signal, options.backoff.maxMs);
      return;
    } else {
      report("retrying", `${failure.message}; retrying with backoff`);
      context.logger.warn({ ...log, during, status: failure.status }, failure.message);
    }
    await backoff.wait(abort.signal, failure.retryAfterMs);
  };

  const identify = async (): Promise<TelegramBotIdentity | undefined> => {
    while (!abort.signal.aborted) {
      try {
        const me = await api.getMe(signal);
        // Polling and a webhook exclude each other: polling mode owns the bot's updates.
        await api.deleteWebhook({ drop_pending_updates: false }, signal);
        return { id: me.id, username: me.username };
      } catch (error) {
        if (abort.signal.aborted) return undefined;
        await recover(describeTelegramError(error, token), "getMe");
      }
    }
    return undefined;
  };

  const loop = async () => {
    const bot = await identify();
    if (!bot) return;
    options.onIdentity(bot);
    let offset = await offsets.load(bot.id).catch(() => undefined);
    let saved = offset;
    const persist = async () => {
      if (offset === undefined || offset === saved) return;
      try {
        await offsets.save(bot.id, offset);
        saved = offset;
      } catch (error) {
        // Only costs a redelivery after a restart, which the inbox dedupes.
        context.logger.warn({ ...log, ...errorFields(error) }, "could not save the telegram offset");
      }
    };
    context.logger.info({ ...log, bot: bot.username, offset }, "telegram polling started");
    while (!abort.signal.aborted) {
      let updates: Awaited<ReturnType<Api["getUpdates"]>>;
      try {
        updates = await api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            timeout: options.pollTimeoutSeconds,
            allowed_updates: telegramAllowedUpdates,
          },
          signal,
        );
      } catch (error) {
        if (abort.signal.aborted) break;
        await recover(describeTelegramError(error, token), "getUpdates");
        continue;
      }
      report("connected");
      backoff.reset();
      let failed = false;
      for (const update of updates) {
        try {
          const outcome = await acceptUpdate(update, bot, context, options.download);
          context.logger.debug({ ...log, updateId: update.update_id, outcome }, "telegram update handled");
        } catch (error) {
          // Not confirmed: the next getUpdates asks from this update again, so Telegram redelivers it.
          const message = `the inbox did not accept telegram update ${update.update_id}: ${describeTelegramError(error, token).message}`;
          context.logger.error({ ...log, updateId: update.update_id }, message);
          report("retrying", message);
          failed = true;
          break;
        }
        // Updates arrive in ascending order; the last one handled sets the next offset.
        offset = update.update_id + 1;
        if (abort.signal.aborted) break;
      }
      await persist();
      if (failed) await backoff.wait(abort.signal);
    }
    await persist();
  };

  const running = loop().catch((error: unknown) => {
    const failure = describeTelegramError(error, token);
    report("failed", failure.message);
    context.logger.error({ ...log }, `telegram polling stopped: ${failure.message}`);
  });

  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
