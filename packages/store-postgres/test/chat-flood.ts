// A flood of signed webhook events as a platform sends them behind a load balancer: per chat in
// order (each posted once the previous one got its 2xx), to a random worker, redelivered to
// another while a worker answers 503 or is down. Used by the fault tests.
import { until } from "@downcity/testkit";
import { postEvent, type ReplyReceiver, type WebhookEvent } from "./webhook-traffic.js";

/** A running flood: what was sent and acknowledged so far, and its end. */
export interface ChatFlood {
  readonly sent: ReadonlyMap<string, WebhookEvent & { order: number }>;
  readonly acknowledged: ReadonlySet<string>;
  /** Acknowledgements that were neither `accepted` nor `duplicate`. */
  readonly unexpected: readonly string[];
  /** Events the load balancer had to post more than once (a worker answered 503 or was down). */
  redelivered(): number;
  /** Resolves once every event is acknowledged. */
  readonly done: Promise<void>;
}

/** Starts posting `total` events over `chats` chats to the ports `ports()` names. */
export function startChatFlood(options: {
  total: number;
  chats: number;
  secret: string;
  receiver: ReplyReceiver;
  ports: () => number[];
  random: () => number;
  /** The senders stay at most this many unanswered events ahead [150]. */
  backlog?: number;
  /** How long one event may take to be acknowledged (a database restart included) [120 s]. */
  ackTimeoutMs?: number;
  /** Put before event and chat ids, so several floods can share a receiver [""]. */
  prefix?: string;
  /**
   * Post a chat's next event only once the previous one was answered [false]: every event then
   * runs on its own (a store that merges a chat's waiting events into the running lane, as the
   * file store does, would otherwise answer several with one reply).
   */
  oneAtATime?: boolean;
}): ChatFlood {
  const prefix = options.prefix ?? "";
  const { total, chats, random } = options;
  const sent = new Map<string, WebhookEvent & { order: number }>();
  const acknowledged = new Set<string>();
  const unexpected: string[] = [];
  let redelivered = 0;
  const backlog = options.backlog ?? 150;
  const perChat = (chat: number) => Math.floor(total / chats) + (chat < total % chats ? 1 : 0);
  const sender = async (chat: number) => {
    for (let index = 0; index < perChat(chat); index++) {
      const eventId = `${prefix}c${chat}-${index}`;
      const event = { eventId, chatId: `${prefix}chat-${chat}`, text: `event ${eventId}` };
      sent.set(event.eventId, { ...event, order: index });
      await until(
        () => acknowledged.size - options.receiver.answered().size < backlog,
        "the backlog to shrink",
        {
          timeoutMs: 120_000,
          intervalMs: 10,
        },
      );
      const ports = options.ports();
      const first = Math.floor(random() * ports.length);
      const answer = await postEvent(event, {
        secret: options.secret,
        random,
        timeoutMs: options.ackTimeoutMs ?? 120_000,
        pick: (attempt) => ports[(first + attempt) % ports.length] as number,
      });
      if (answer.text !== '{"accepted":true}' && answer.text !== '{"duplicate":true}')
        unexpected.push(`${event.eventId}: ${answer.status} ${answer.text}`);
      if (answer.attempts > 1) redelivered++;
      acknowledged.add(event.eventId);
      if (options.oneAtATime)
        await until(() => options.receiver.answered().has(eventId), `the reply to ${eventId}`, {
          timeoutMs: 120_000,
          intervalMs: 5,
        });
    }
  };
  const done = Promise.all(Array.from({ length: chats }, (_, chat) => sender(chat))).then(() => {});
  done.catch(() => {});
  return { sent, acknowledged, unexpected, redelivered: () => redelivered, done };
}
