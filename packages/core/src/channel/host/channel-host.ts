import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import type { AgentRuntime, RunResult } from "../agent/agent-runtime.js";
import type { OutgoingMessage } from "../chat/channel-sender.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFromZod } from "../errors/zod-issue-message.js";
import { errorFields, type Logger } from "../logger/logger.js";
import { downcityPaths } from "../paths/downcity-paths.js";
import type { ServiceDefinition } from "../service/define-service.js";
import type { DowncityStore, PollerLock } from "../store/downcity-store.js";
import { type ChannelAccess, channelAccessSchema, decideAccess } from "./channel-access.js";
import type {
  AcceptResult,
  ChannelAdapter,
  ChannelInbox,
  ChannelState,
  ChannelTarget,
} from "./channel-adapter.js";
import type { ChannelDelivery, DeliveryQueue } from "./channel-delivery.js";
import { type ChannelEvent, channelContextId, channelEventSchema } from "./channel-event.js";
import type { ChannelInstance, ChannelStatus } from "./channel-instance.js";
import { type ContactBook, openContactBook } from "./contact-book.js";
import type { InboxEntry, InboxMessage } from "./inbox-store.js";
import { openChannelDelivery } from "./open-channel-delivery.js";
import type { OutboxEntry } from "./outbox-store.js";
import { openPairingStore, type PairingStore } from "./pairing-store.js";
import { pollWhenElected } from "./poller-election.js";
import { splitText } from "./split-text.js";

/** Options of `createChannelHost`. */
export interface ChannelHostOptions {
  rootDir: string;
  runtime: AgentRuntime;
  logger: Logger;
  channels: readonly ChannelInstance[];
  /** Failed runs of one event before it goes to dead letters [3]. */
  maxRunAttempts?: number;
  /** Failed sends of one message before it goes to dead letters [5]. */
  maxSendAttempts?: number;
  /** First retry delay of a failed run or send [1000 ms; doubles each time]. */
  retryDelayMs?: number;
  /** Wraps the inbox each adapter sees (the conformance suite injects faults with it). */
  interceptInbox?: (channel: string, inbox: ChannelInbox) => ChannelInbox;
  /**
   * A store several workers share (`"store"` in downcity.json): events are claimed from it instead
   * of run on arrival, and polling adapters run on one worker at a time. Absent: files, one worker.
   */
  store?: DowncityStore;
  /** This worker's id among the store's workers [host:pid:random]. */
  workerId?: string;
  /** How long a worker's claim on an event holds without renewal [15000 ms]. */
  leaseMs?: number;
  /** Events this worker runs at once with a shared store [4]. */
  concurrency?: number;
}

/** Inbound and outbound delivery for every channel: durable inbox, outbox, access, contacts. */
export interface ChannelHost {
  start(): Promise<void>;
  /**
   * Accepts a message that did not come through an adapter (the CLI and the HTTP API: no access
   * check). Resolves once it is durable; `result(id)` then waits for its run.
   */
  submit(input: { channel: string; contextId: string; eventId?: string; message: InboxMessage }): Promise<{
    result: "accepted" | "duplicate";
    id: string;
  }>;
  /** The run of an accepted entry still in this process, if any. */
  result(id: string): Promise<RunResult> | undefined;
  status(): ChannelStatus[];
  /** `files`, or the name of the shared store adapter. */
  readonly storeKind: string;
  /** This worker's id among the workers of a shared store. */
  readonly workerId: string;
  readonly inbox: DeliveryQueue<InboxEntry>;
  readonly outbox: DeliveryQueue<OutboxEntry>;
  readonly contacts: ContactBook;
  /** The access state of a channel; NOT_FOUND names the configured channels otherwise. */
  access(channel: string): { config: ChannelAccess; pairing: PairingStore };
  channelNames(): string[];
  /** The services the started channels' adapters offer (see `ChannelAdapterDefinition.services`). */
  adapterServices(): ServiceDefinition[];
  close(): Promise<void>;
}

interface Running {
  instance: ChannelInstance;
  adapter?: ChannelAdapter;
  services?: ServiceDefinition[];
  accessConfig?: ChannelAccess;
  pairing?: PairingStore;
  status: ChannelStatus;
  abort: AbortController;
  /** Held while this worker is the one that polls the channel (shared store only). */
  pollerLock?: Promise<PollerLock | undefined>;
}

/** Creates the channel host of a project; `start()` opens its stores, replays unfinished events and starts adapters. */
export async function createChannelHost(options: ChannelHostOptions): Promise<ChannelHost> {
  const { runtime, logger } = options;
  const paths = downcityPaths(options.rootDir);
  const maxRunAttempts = options.maxRunAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const contacts = await openContactBook(paths.contactsFile);
  const channels = new Map<string, Running>();
  const unregister: Array<() => void> = [];

  const counts = (name: string) => channels.get(name)?.status.counts;
  const bump = (name: string, counter: keyof ChannelStatus["counts"]) => {
    const channelCounts = counts(name);
    if (channelCounts) channelCounts[counter] += 1;
  };
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const delivery: ChannelDelivery = await openChannelDelivery({
    ...options,
    maxRunAttempts,
    retryDelayMs,
    workerId,
    adapter: (name) => channels.get(name)?.adapter,
    onInboxDead: (entry) => bump(entry.channel, "deadLettered"),
    onSent: (entry) => bump(entry.channel, "sent"),
    onRetry: (entry) => bump(entry.channel, "retried"),
    onOutboxDead: (entry) => bump(entry.channel, "deadLettered"),
  });

  // Records every chunk before any adapter sees it; keys are stable per run position, so a replay finds them.
  const enqueue = async (
    channel: string,
    contextId: string,
    target: ChannelTarget,
    text: string,
    baseKey: string,
  ) => {
    const adapter = channels.get(channel)?.adapter;
    const max = adapter?.capabilities.maxTextLength ?? 4000;
    const chunks = splitText(text, max);
    await delivery.record(
      chunks.map((chunk, index) => ({
        key: chunks.length === 1 ? baseKey : `${baseKey}.${index}`,
        channel,
        contextId,
        target,
        text: chunk,
      })),
    );
  };

  const outgoing = (channel: string) => async (message: OutgoingMessage) => {
    if (!message.chatId) return;
    const trigger = message.triggerMessageId ? await delivery.trigger(message.triggerMessageId) : undefined;
    const target: ChannelTarget = {
      chatId: message.chatId,
      ...(trigger?.message.chatType ? { chatType: trigger.message.chatType } : {}),
      ...(message.threadId ? { threadId: message.threadId } : {}),
      ...(trigger?.message.platformMessageId ? { replyToMessageId: trigger.message.platformMessageId } : {}),
    };
    const base = `${message.triggerMessageId ?? message.requestId}#${message.sequence}`;
    await enqueue(channel, message.contextId, target, message.text, base);
  };

  const offerPairing = async (running: Running, event: ReturnType<typeof channelEventSchema.parse>) => {
    const offer = await running.pairing?.offer({
      userId: event.userId,
      chatId: event.chatId,
      ...(event.username ? { username: event.username } : {}),
    });
    if (!offer) {
      logger.info(
        { channel: running.instance.name, userId: event.userId },
        "pairing not offered (a code is pending or 3 are waiting)",
      );
      return;
    }
    const text = `Hi! This agent only answers people it knows. To be let in, ask its owner to run:\n\ndowncity access approve ${offer.code}\n\nThe code expires in 1 hour.`;
    await enqueue(
      running.instance.name,
      channelContextId(running.instance.name, event),
      { chatId: event.chatId, chatType: "direct", replyToMessageId: event.messageId },
      text,
      `pairing:${running.instance.name}:${event.eventId}`,
    );
  };

  const acceptFrom =
    (running: Running) =>
    async (input: ChannelEvent): Promise<AcceptResult> => {
      const name = running.instance.name;
      const parsed = channelEventSchema.safeParse(input);
      if (!parsed.success) throw errorFromZod(parsed.error, { what: `event from channel ${name}` });
      const event = parsed.data;
      running.status.lastEventAt = new Date().toISOString();
      const decision = decideAccess(
        event,
        running.accessConfig as ChannelAccess,
        running.pairing?.approved() ?? new Set(),
      );
      if (!decision.allowed) {
        running.status.counts.denied += 1;
        logger.info(
          { channel: name, chatId: event.chatId, userId: event.userId, reason: decision.reason },
          "event denied",
        );
        if (decision.offerPairing)
          await offerPairing(running, event).catch((error: unknown) =>
            logger.error({ channel: name, ...errorFields(error) }, "pairing reply failed"),
          );
        return "denied";
      }
      const contextId = channelContextId(name, event);
      const accepted = await delivery.accept({
        channel: name,
        eventId: event.eventId,
        contextId,
        message: {
          text: event.text,
          chatId: event.chatId,
          chatType: event.chatType,
          userId: event.userId,
          ...(event.username ? { username: event.username } : {}),
          ...(event.threadId ? { threadId: event.threadId } : {}),
          platformMessageId: event.messageId,
        },
      });
      if (accepted.result === "duplicate") {
        running.status.counts.duplicate += 1;
        return "duplicate";
      }
      running.status.counts.accepted += 1;
      contacts
        .seen({
          channel: name,
          chatId: event.chatId,
          chatType: event.chatType,
          contextId,
          userId: event.userId,
          ...(event.username ? { username: event.username } : {}),
          ...(event.displayName ? { displayName: event.displayName } : {}),
          lastSeen: new Date().toISOString(),
        })
        .catch((error: unknown) => logger.warn(errorFields(error), "could not update the contact book"));
      return "accepted";
    };

  const startChannel = async (instance: ChannelInstance) => {
    const running: Running = {
      instance,
      status: {
        name: instance.name,
        adapter: instance.source,
        state: "stopped",
        counts: { accepted: 0, duplicate: 0, denied: 0, sent: 0, retried: 0, deadLettered: 0 },
      },
      abort: new AbortController(),
    };
    channels.set(instance.name, running);
    const fail = (error: unknown) => {
      running.status.state = "failed";
      running.status.error = (error as Error)?.message ?? String(error);
      logger.error(
        { channel: instance.name, ...errorFields(error) },
        "channel failed to start; the others go on",
      );
    };
    try {
      if (instance.loadError) throw instance.loadError;
      if (!instance.definition)
        throw new DowncityError("PLUGIN_FAILED", `channel "${instance.name}" has no adapter`);
      const access = channelAccessSchema.safeParse(instance.access ?? {});
      if (!access.success)
        throw errorFromZod(access.error, {
          what: "downcity.json",
          code: "CONFIG_INVALID",
          prefix: `channels.${instance.name}.access`,
        });
      running.accessConfig = access.data;
      const parsedOptions = instance.definition.options.safeParse(instance.options ?? {});
      if (!parsedOptions.success)
        throw errorFromZod(parsedOptions.error, {
          what: "downcity.json",
          code: "CONFIG_INVALID",
          prefix: `channels.${instance.name}`,
        });
      const dir = paths.channelDir(instance.name);
      const stateDir = join(dir, "state");
      await mkdir(stateDir, { recursive: true });
      running.pairing = await openPairingStore(join(dir, "access.json"));
      const adapter = instance.definition.create(parsedOptions.data, { rootDir: paths.rootDir, logger });
      running.adapter = adapter;
      running.services =
        instance.definition.services?.(parsedOptions.data, { channel: instance.name, logger }) ?? [];
      unregister.push(runtime.registerSender(instance.name, outgoing(instance.name)));
      const context = {
        channel: instance.name,
        inbox: options.interceptInbox
          ? options.interceptInbox(instance.name, { accept: acceptFrom(running) })
          : { accept: acceptFrom(running) },
        logger,
        signal: running.abort.signal,
        stateDir,
        setState: (state: ChannelState | "standby", error?: string) => {
          running.status.state = state;
          if (error) running.status.error = error;
          else delete running.status.error;
        },
      };
      const pollerLock = options.store?.pollerLock?.bind(options.store);
      if (pollerLock && adapter.capabilities.polls) {
        // Several workers: one polls, the others stand by (and still send this channel's replies).
        running.status.state = "standby";
        running.pollerLock = pollWhenElected({
          channel: instance.name,
          pollerLock,
          signal: running.abort.signal,
          logger,
          start: () => adapter.start(context),
          stop: () => adapter.stop(),
          setState: context.setState,
        });
      } else {
        running.status.state = "connected";
        await adapter.start(context);
      }
      delivery.wakeOutbox();
    } catch (error) {
      fail(error);
    }
  };

  return {
    async start() {
      unregister.push(
        runtime.registerDirectory((to) => {
          const contact = contacts.resolve(to);
          return { contextId: contact.contextId, channel: contact.channel, chatId: contact.chatId };
        }),
      );
      for (const instance of options.channels) await startChannel(instance);
      delivery.start();
    },
    async submit(input) {
      return delivery.accept({
        channel: input.channel,
        eventId: input.eventId ?? randomUUID(),
        contextId: input.contextId,
        message: input.message,
      });
    },
    result: (id) => delivery.result(id),
    status: () => [...channels.values()].map((running) => structuredClone(running.status)),
    storeKind: delivery.kind,
    workerId,
    inbox: delivery.inbox,
    outbox: delivery.outbox,
    contacts,
    access(channel) {
      const running = channels.get(channel);
      if (!running?.accessConfig || !running.pairing)
        throw new DowncityError(
          "NOT_FOUND",
          `No running channel "${channel}". Channels: ${[...channels.keys()].join(", ") || "none configured"}.`,
          { field: "channel" },
        );
      return { config: running.accessConfig, pairing: running.pairing };
    },
    channelNames: () => [...channels.keys()],
    adapterServices: () => [...channels.values()].flatMap((running) => running.services ?? []),
    async close() {
      for (const running of channels.values()) {
        running.abort.abort();
        try {
          await running.adapter?.stop();
        } catch (error) {
          logger.warn({ channel: running.instance.name, ...errorFields(error) }, "channel stop failed");
        }
        // Given back only once this worker stopped polling, so two never poll at once.
        await (await running.pollerLock)?.release().catch(() => {});
        running.status.state = "stopped";
      }
      for (const undo of unregister) undo();
      await delivery.close();
      await contacts.flush();
    },
  };
}
