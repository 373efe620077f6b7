// The platform's side of the webhook channel for multi-worker tests: signed inbound posts spread
// over the workers' ports (a load balancer), a signature-checking reply receiver, and the checks
// "exactly one distinct reply per acknowledged event" and "replies of a chat in event order".
import { postSigned, type Received, startSignedReceiver } from "@downcity/testkit";
import { delay } from "./worker-cluster.js";

/** One reply as the receiver got it, with its arrival order and time. */
export type Reply = Received<{
  idempotencyKey: string;
  chatId: string;
  threadId?: string;
  text: string;
  replyToMessageId?: string;
}>;

export interface ReplyReceiver {
  url: string;
  replies: Reply[];
  badSignatures: string[];
  /** Event ids (replyToMessageId) with at least one reply. */
  answered(): Set<string>;
  close(): Promise<void>;
}

/** A loopback receiver that checks each reply's signature and records the ones it accepts. */
export async function startReplyReceiver(secret: string): Promise<ReplyReceiver> {
  const answered = new Set<string>();
  const receiver = await startSignedReceiver<Omit<Reply, "order" | "at">>({
    secret,
    onReceive: (reply) => {
      if (reply.replyToMessageId) answered.add(reply.replyToMessageId);
    },
  });
  return {
    url: receiver.url,
    replies: receiver.received,
    badSignatures: receiver.badSignatures,
    answered: () => answered,
    close: receiver.close,
  };
}

/** An inbound event as the webhook channel takes it. */
export interface WebhookEvent {
  eventId: string;
  chatId: string;
  threadId?: string;
  text: string;
}

/**
 * The load balancer: posts `event` to the port `pick()` chooses and, like a platform, redelivers it
 * (to another pick) until a 2xx. Returns the acknowledging answer and the attempts it took.
 */
export async function postEvent(
  event: WebhookEvent,
  options: { secret: string; pick: (attempt: number) => number; random: () => number; timeoutMs?: number },
): Promise<{ status: number; text: string; attempts: number; port: number }> {
  const body = JSON.stringify({ ...event, chatType: "direct", userId: `user-${event.chatId}` });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (let attempt = 0; ; attempt++) {
    const port = options.pick(attempt);
    const answer = await postSigned(port, body, options.secret);
    if (answer && (answer.status === 202 || answer.status === 200))
      return { ...answer, attempts: attempt + 1, port };
    if (answer && answer.status !== 503)
      throw new Error(`event ${event.eventId}: HTTP ${answer.status} ${answer.text} from port ${port}`);
    if (Date.now() > deadline) throw new Error(`event ${event.eventId}: not acknowledged in time`);
    // That worker is down or stopping: back off a little, as a platform would, then try another.
    await delay(5 + Math.floor(options.random() * 20));
  }
}

/**
 * The webhook kill loop's duplicate-delivery criterion: every acknowledged event gets exactly one
 * distinct reply (one idempotency key), with the right text and chat. The same key may arrive more
 * than once (an outbox send replayed after a kill is at-least-once; the receiver drops keys it has
 * already handled), so such resends are counted, not failed. Also: no reply to an event never sent,
 * and the replies of a chat arrive in event order (each event's first arrival).
 */
export function checkReplies(
  sent: ReadonlyMap<string, { chatId: string; threadId?: string; order: number }>,
  replies: readonly Reply[],
  expectedText: (eventId: string) => string,
): { problems: string[]; sameKeyDuplicates: number } {
  const problems: string[] = [];
  const byEvent = new Map<string, Reply[]>();
  for (const reply of replies) {
    const eventId = reply.replyToMessageId ?? "(none)";
    byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), reply]);
  }
  for (const eventId of byEvent.keys())
    if (!sent.has(eventId)) problems.push(`${eventId}: a reply to an event never sent`);
  let sameKeyDuplicates = 0;
  for (const [eventId, target] of sent) {
    const got = byEvent.get(eventId) ?? [];
    const keys = new Set(got.map((reply) => reply.idempotencyKey));
    sameKeyDuplicates += got.length - keys.size;
    if (keys.size !== 1) problems.push(`${eventId}: ${keys.size} distinct replies (${[...keys].join(", ")})`);
    for (const reply of got) {
      if (reply.text !== expectedText(eventId))
        problems.push(`${eventId}: reply text ${JSON.stringify(reply.text)}`);
      if (reply.chatId !== target.chatId || reply.threadId !== target.threadId)
        problems.push(`${eventId}: reply went to ${reply.chatId}/${reply.threadId ?? "-"}`);
    }
  }
  // Per chat, the events in the order of their replies' first arrival must be the order they were sent.
  const firstArrival = new Map<string, number>();
  for (const reply of replies)
    if (reply.replyToMessageId && !firstArrival.has(reply.replyToMessageId))
      firstArrival.set(reply.replyToMessageId, reply.order);
  const chats = new Map<string, Array<{ eventId: string; order: number }>>();
  for (const [eventId, target] of sent) {
    const chat = `${target.chatId}/${target.threadId ?? ""}`;
    chats.set(chat, [...(chats.get(chat) ?? []), { eventId, order: target.order }]);
  }
  for (const [chat, events] of chats) {
    const bySent = [...events].sort((a, b) => a.order - b.order).map((event) => event.eventId);
    const byReply = bySent
      .filter((eventId) => firstArrival.has(eventId))
      .sort((a, b) => (firstArrival.get(a) ?? 0) - (firstArrival.get(b) ?? 0));
    const expected = bySent.filter((eventId) => firstArrival.has(eventId));
    if (byReply.join() !== expected.join())
      problems.push(
        `chat ${chat}: replies arrived in the order ${byReply.join(" ")}, events were sent ${expected.join(" ")}`,
      );
  }
  return { problems, sameKeyDuplicates };
}
