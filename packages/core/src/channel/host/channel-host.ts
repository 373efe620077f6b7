import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { AgentRuntime, RunResult } from "../../agent/agent-runtime.js";
import { DowncityError } from "../../errors/downcity-error.js";
import type { Logger } from "../../logger/logger.js";
import { createMediaStore } from "../../media/media-store.js";
import { downcityPaths } from "../../paths/downcity-paths.js";
import type { CancelTarget } from "../../run/active-runs.js";
import type { ServiceDefinition } from "../../service/define-service.js";
import { defaultLeaseMs } from "../../store/context-lease.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileContactStore } from "../../store/file/file-contact-store.js";
import type { PairingStore } from "../../store/file/file-pairing-store.js";
import { openFileStore } from "../../store/file/file-store.js";
import { createUsageLog } from "../../store/file/file-usage-store.js";
import type { InboxEntry, InboxMessage } from "../../store/inbox-store.js";
import type { OutboxEntry } from "../../store/outbox-store.js";
import type { ChannelInbox, ChannelMessage } from "../adapter/channel-adapter.js";
import { createChannelDelivery, type DeliveryQueue } from "../delivery/channel-delivery.js";
import { defaultDeliveryPolicy } from "../delivery/outbox-pump.js";
import { approvePairing, type PairingApproval } from "./approve-pairing.js";
import { awaitEventResult } from "./await-event-result.js";
import { builtinChatCommands } from "./builtin-chat-commands.js";
import type { ChannelAccess } from "./channel-access.js";
import type { ChannelInstance, ChannelStatus } from "./channel-instance.js";
import { type ChatActionHandler, createChatActionDispatch } from "./chat-actions.js";
import { createChatCommandDispatch } from "./chat-command-dispatch.js";
import { type ChatCommandDefinition, createChatCommandRegistry } from "./chat-command-registry.js";
import { createClusterCancel } from "./cluster-cancel.js";
import { type ContactBook, createContactBook } from "./contact-book.js";
import { createEventRelay, type WorkerEventListener } from "./event-relay.js";
import { createFailureNotice } from "./failure-notice.js";
import { createInboundEvents } from "./inbound-events.js";
import { createProgressMessages } from "./progress-messages.js";
import { type ReplyDelivery, replyDelivery } from "./reply-delivery.js";
import { createReplyRecorder } from "./reply-recorder.js";
import { createRunActivity } from "./run-activity.js";
import { newRunningChannel, type RunningChannel } from "./running-channel.js";
import { createSentButtons, type SentMessage } from "./sent-buttons.js";
import { startChannel, stopChannel } from "./start-channel.js";
import { createTypingIndicators } from "./typing-indicators.js";

/** Options of `createChannelHost`. */
export interface ChannelHostOptions {
  rootDir: string;
  runtime: AgentRuntime;
  logger: Logger;
  channels: readonly ChannelInstance[];
  /** Failed runs of one event before it goes to dead letters [3]. */
  maxRunAttempts?: number;
  /** Failed sends of one message before it goes to dead letters [no limit: `channels.<name>.delivery.retryForMs` bounds them]. */
  maxSendAttempts?: number;
  /** First retry delay of a failed run or send [1000 ms; doubles each time]. */
  retryDelayMs?: number;
  /** Wraps the inbox each adapter sees (the conformance suite injects faults with it). */
  interceptInbox?: (channel: string, inbox: ChannelInbox) => ChannelInbox;
  /**
   * The configured store (`"store"` in downcity.json; the caller closes it). With a poller lock,
   * polling adapters run on one worker at a time. Absent: the file store under `.downcity/`,
   * opened and closed by the host.
   */
  store?: DowncityStore;
  /** This worker's id among the store's workers [host:pid:random]. */
  workerId?: string;
  /** How long a worker's claim on an event holds without renewal [15000 ms]. */
  leaseMs?: number;
  /** Events this worker runs at once when the store hands out one event per context [4]. */
  concurrency?: number;
  /** Incoming files (`media` in downcity.json): the largest kept [20 MiB]; larger ones are refused visibly. */
  media?: { maxBytes?: number };
  /** Chat commands besides the built-ins (`/stop`, `/new`, `/status`, `/usage`, `/help`), answered with no model call. */
  commands?: readonly ChatCommandDefinition[];
  /** Handlers of button presses, by the prefix of their action ids. */
  actions?: readonly ChatActionHandler[];
  /** Progress messages (`channels.<name>.progress: "status"`): least time between edits [2000 ms], longest wait for one [10000 ms]. */
  progress?: { minIntervalMs?: number; timeoutMs?: number };
  /** Configured keys and tokens, masked wherever a progress message or `/status` shows a command. */
  secrets?: readonly string[];
  /** Told of each send of an outbox chunk: sent, failed and retried later, or dead-lettered (telemetry). */
  onDelivery?: (entry: OutboxEntry, outcome: "sent" | "retry" | "dead") => void;
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
  /**
   * Waits for the run of an accepted entry whichever worker runs it (on a shared store, until the
   * inbox finished it; the result is read from the shared history and journal).
   */
  awaitResult(id: string, contextId: string, options?: { signal?: AbortSignal }): Promise<RunResult>;
  /**
   * Calls `listener` with the runtime events of runs on other workers of a shared store (never on
   * files). The other workers publish them only while some worker has such a listener.
   */
  onWorkerEvent(listener: WorkerEventListener): () => void;
  /** Resolves once the other workers were told that this one listens (at once on files). */
  workerEventsListening(): Promise<void>;
  /** Stops the matching runs wherever they run (on a shared store, also on the worker that holds the context). */
  cancel(target: CancelTarget): Promise<Array<{ contextId: string; requestId: string }>>;
  status(): ChannelStatus[];
  /** `files`, or the name of the shared store adapter. */
  readonly storeKind: string;
  /** This worker's id among the workers of a shared store. */
  readonly workerId: string;
  readonly inbox: DeliveryQueue<InboxEntry>;
  readonly outbox: DeliveryQueue<OutboxEntry>;
  /** Where a run's reply stands in the outbox, by its journal key (`ReplyRecord.key`). */
  replyDelivery(key: string): Promise<ReplyDelivery>;
  readonly contacts: ContactBook;
  /** The access state of a channel; NOT_FOUND names the configured channels otherwise. */
  access(channel: string): { config: ChannelAccess; pairing: PairingStore };
  channelNames(): string[];
  /**
   * Approves a pairing code on the channel that issued it: the user is told, and the message that
   * asked is answered. NOT_FOUND when no channel has the code pending.
   */
  approvePairing(code: string): Promise<PairingApproval>;
  /** The services the started channels' adapters offer (see `ChannelAdapterDefinition.services`). */
  adapterServices(): ServiceDefinition[];
  /**
   * Replaces a message with buttons sent under the reply key `key` (an approval request answered
   * by a command or the CLI: `actions: []` removes its buttons), where the adapter can edit. A
   * message this worker does not remember (sent before a restart, or by another worker) is edited
   * through `known`, as `onButtonsSent` reported it. False when it cannot edit or nothing is known.
   */
  editSent(key: string, message: ChannelMessage, known?: SentMessage): Promise<boolean>;
  /**
   * Calls `listener` with the outbox key (`<reply key>` or `<reply key>.<n>`) and the platform
   * message of each chunk with buttons this worker sends, so its owner can keep it past a restart.
   */
  onButtonsSent(listener: (key: string, sent: SentMessage) => void): () => void;
  close(): Promise<void>;
}

/** Creates the channel host of a project; `start()` starts adapters, then replays unfinished events. */
export async function createChannelHost(options: ChannelHostOptions): Promise<ChannelHost> {
  const { runtime, logger } = options;
  const paths = downcityPaths(options.rootDir);
  const store = options.store ?? (await openFileStore({ rootDir: options.rootDir, logger }));
  // A store without contacts (an older store package) leaves them in contacts.json.
  const contacts = createContactBook(store.contacts ?? (await openFileContactStore(paths.contactsFile)));
  const channels = new Map<string, RunningChannel>();
  const unregister: Array<() => void> = [];
  const bump = (name: string, counter: keyof ChannelStatus["counts"]) => {
    const counts = channels.get(name)?.status.counts;
    if (counts) counts[counter] += 1;
  };
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const delivery = createChannelDelivery({
    rootDir: options.rootDir,
    store,
    runtime,
    logger,
    owner: workerId,
    leaseMs: options.leaseMs ?? defaultLeaseMs,
    concurrency: options.concurrency ?? 4,
    maxRunAttempts: options.maxRunAttempts ?? 3,
    retryDelayMs: options.retryDelayMs ?? 1000,
    ...(options.maxSendAttempts ? { maxSendAttempts: options.maxSendAttempts } : {}),
    deliveryPolicy: (name) => channels.get(name)?.settings?.delivery ?? defaultDeliveryPolicy,
    adapter: (name) => channels.get(name)?.adapter,
    onRun: (entry, run) => {
      typing.during(entry, run);
      progress.during(entry, run);
    },
    onInboxDead: (entry, error) => {
      bump(entry.channel, "deadLettered");
      // Only a chat of a configured channel hears it; the CLI and HTTP callers get the error itself.
      if (channels.has(entry.channel)) void notifyFailure(entry, error);
    },
    onSent: (entry, messageId) => {
      bump(entry.channel, "sent");
      sentButtons.sent(entry, messageId);
      options.onDelivery?.(entry, "sent");
    },
    onRetry: (entry) => {
      bump(entry.channel, "retried");
      options.onDelivery?.(entry, "retry");
    },
    onOutboxDead: (entry) => {
      bump(entry.channel, "deadLettered");
      options.onDelivery?.(entry, "dead");
    },
  });
  const sentButtons = createSentButtons({ adapter: (name) => channels.get(name)?.adapter, logger });
  const typing = createTypingIndicators({
    adapter: (name) => channels.get(name)?.adapter,
    enabled: (name) => channels.get(name)?.settings?.typing !== false,
    logger,
  });
  const replies = createReplyRecorder({
    delivery,
    maxTextLength: (channel) => channels.get(channel)?.adapter?.capabilities.maxTextLength,
    renders: (channel) => {
      const format = channels.get(channel)?.adapter?.capabilities.format;
      return format === "telegram-html" || format === "feishu-card" || format === "qq-markdown";
    },
    writesMarkdown: (channel) => channels.get(channel)?.adapter?.capabilities.format === "markdown",
    sendsFiles: (channel) => {
      const capabilities = channels.get(channel)?.adapter?.capabilities;
      return capabilities ? capabilities.attachmentsOut === true : undefined;
    },
  });
  const notifyFailure = createFailureNotice({ replies, logger });
  const media = createMediaStore({
    rootDir: options.rootDir,
    ...(options.media?.maxBytes ? { maxBytes: options.media.maxBytes } : {}),
  });
  const activity = createRunActivity({ runtime, ...(options.secrets ? { secrets: options.secrets } : {}) });
  unregister.push(() => activity.close());
  const progress = createProgressMessages({
    adapter: (name) => channels.get(name)?.adapter,
    enabled: (name) => channels.get(name)?.settings?.progress === "status",
    activity,
    logger,
    ...options.progress,
  });
  const clusterCancel = store.cancels
    ? createClusterCancel({ cancels: store.cancels, runtime, workerId, logger })
    : undefined;
  if (clusterCancel) unregister.push(() => clusterCancel.close());
  const relay = store.events ? createEventRelay({ bus: store.events, runtime, workerId, logger }) : undefined;
  const cancel = (target: CancelTarget) => clusterCancel?.cancel(target) ?? runtime.cancel(target);
  const registry = createChatCommandRegistry();
  const usageLog = store.usage ?? createUsageLog({ rootDir: options.rootDir });
  for (const command of builtinChatCommands({
    runtime: { cancel, history: (contextId) => runtime.history(contextId) },
    activity,
    usageLog,
    registry,
  }))
    registry.register(command);
  for (const command of options.commands ?? []) registry.register(command);
  const inbox = createInboundEvents({
    delivery,
    contacts,
    replies,
    logger,
    media,
    command: createChatCommandDispatch({ registry, replies, outbox: store.outbox, logger }),
    answersWithoutMention: (text) => registry.answersWithoutMention(text),
    action: createChatActionDispatch({
      handlers: options.actions ?? [],
      adapter: (name) => channels.get(name)?.adapter,
      replies,
      logger,
    }),
  });

  return {
    async start() {
      unregister.push(
        runtime.registerDirectory(async (to) => {
          const contact = await contacts.resolve(to);
          return { contextId: contact.contextId, channel: contact.channel, chatId: contact.chatId };
        }),
      );
      for (const instance of options.channels) {
        const running = newRunningChannel(instance);
        channels.set(instance.name, running);
        await startChannel(running, {
          paths,
          runtime,
          logger,
          replies,
          inbox,
          store,
          commands: registry.list(),
          onClose: (undo) => unregister.push(undo),
          ...(options.interceptInbox ? { interceptInbox: options.interceptInbox } : {}),
        });
        delivery.wakeOutbox();
      }
      delivery.start();
    },
    submit: (input) =>
      delivery.accept({
        channel: input.channel,
        eventId: input.eventId ?? randomUUID(),
        contextId: input.contextId,
        message: input.message,
      }),
    result: (id) => delivery.result(id),
    awaitResult: (id, contextId, waitOptions) =>
      awaitEventResult(
        {
          inbox: store.inbox,
          history: (context) => runtime.history(context),
          ...(store.journal ? { journal: store.journal } : {}),
          local: (entry) => delivery.result(entry),
          ...(store.onWake
            ? { onWake: (listener: () => void) => store.onWake?.("inbox", listener) ?? (() => {}) }
            : {}),
        },
        { id, contextId },
        waitOptions,
      ),
    cancel,
    onWorkerEvent: (listener) => relay?.onWorkerEvent(listener) ?? (() => {}),
    workerEventsListening: () => relay?.listening() ?? Promise.resolve(),
    status: () => [...channels.values()].map((running) => structuredClone(running.status)),
    storeKind: delivery.kind,
    workerId,
    inbox: delivery.inbox,
    outbox: delivery.outbox,
    replyDelivery: (key) => replyDelivery(store.outbox, key),
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
    approvePairing: (code) => approvePairing({ channels: channels.values(), replies, delivery }, code),
    adapterServices: () => [...channels.values()].flatMap((running) => running.services ?? []),
    editSent: (key, message, known) => sentButtons.edit(key, message, known),
    onButtonsSent: (listener) => sentButtons.onSent(listener),
    async close() {
      // Indicators first, while the adapters can still take them down.
      await typing.close();
      await progress.close();
      for (const running of channels.values()) await stopChannel(running, logger);
      for (const undo of unregister) undo();
      await relay?.close();
      await delivery.close();
      // The host's own file store; a configured store is its opener's to close.
      if (!options.store) await store.close();
      await contacts.flush();
    },
  };
}
