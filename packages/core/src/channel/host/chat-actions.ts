import { DowncityError } from "../../errors/downcity-error.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { ChannelAdapter, ChannelMessage } from "../adapter/channel-adapter.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";
import { eventTarget } from "./event-target.js";
import type { ReplyRecorder } from "./reply-recorder.js";

/** What a button press's handler receives. */
export interface ChatActionInput {
  channel: string;
  contextId: string;
  /** The press (its `action.id`, and `messageId`: the message the button was under). */
  event: ParsedChannelEvent;
  /** The action id after `<prefix>:`. */
  value: string;
}

/** What the host does after a press: answer the presser, and change the message the buttons were under. */
export interface ChatActionOutcome {
  /** Shown to the presser alone where the platform can (a toast), else replied in the chat. */
  answer?: string;
  /** Replaces the pressed message (`actions: []` removes its buttons). */
  edit?: ChannelMessage;
}

/**
 * Handles presses of buttons whose action id starts with `<prefix>:` (approvals use
 * `approval:K7Q2:once`). Answered by the host, with no model call.
 */
export interface ChatActionHandler {
  /** Letters, digits, `_` and `-`, at most 16: the part of an action id before the first `:`. */
  prefix: string;
  handler(input: ChatActionInput): Promise<ChatActionOutcome> | ChatActionOutcome;
}

/** Declares a button handler; throws INVALID_INPUT when the prefix is unusable. */
export function defineChatAction(definition: ChatActionHandler): ChatActionHandler {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(definition.prefix))
    throw new DowncityError(
      "INVALID_INPUT",
      `Chat action prefix "${definition.prefix}" must be 1-16 letters, digits, _ or - (e.g. "approval").`,
      { field: "prefix" },
    );
  return Object.freeze({ ...definition });
}

const answerTimeoutMs = 10_000;

const within = <T>(promise: Promise<T>, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out`)), answerTimeoutMs);
    timer.unref();
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });

/**
 * Routes an event with `action` to the handler of its prefix; an unknown prefix is told so. The
 * answer goes through `answerAction` (private) or, without it, as a chat reply; the edit through
 * the adapter's `editing` when it has one. Presses are deduped by event id like commands are.
 */
export function createChatActionDispatch(options: {
  handlers: readonly ChatActionHandler[];
  adapter(channel: string): ChannelAdapter | undefined;
  replies: ReplyRecorder;
  logger: Logger;
}) {
  const { replies, logger } = options;
  const handlers = new Map(options.handlers.map((handler) => [handler.prefix, handler]));
  const handled = new Set<string>();

  const apply = async (
    channel: string,
    contextId: string,
    event: ParsedChannelEvent,
    outcome: ChatActionOutcome,
  ) => {
    const adapter = options.adapter(channel);
    if (outcome.edit && adapter?.editing)
      await within(adapter.editing.edit(eventTarget(event), event.messageId, outcome.edit), "edit").catch(
        (error: unknown) =>
          logger.warn({ channel, ...errorFields(error) }, "could not edit a pressed message"),
      );
    const text = outcome.answer;
    if (text === undefined) {
      if (adapter?.answerAction) await within(adapter.answerAction(event, ""), "answer").catch(() => {});
      return;
    }
    if (adapter?.answerAction) {
      const answered = await within(adapter.answerAction(event, text), "answer").then(
        () => true,
        (error: unknown) => {
          logger.warn({ channel, ...errorFields(error) }, "could not answer a button press privately");
          return false;
        },
      );
      if (answered) return;
    }
    await replies.record(channel, contextId, eventTarget(event), text, `action:${channel}:${event.eventId}`);
  };

  /** Handles a press; "duplicate" for a redelivery already handled by this process. */
  return async (
    channel: string,
    contextId: string,
    event: ParsedChannelEvent,
  ): Promise<"action" | "duplicate"> => {
    const id = event.action?.id ?? "";
    const key = `${channel}:${event.eventId}`;
    if (handled.has(key)) return "duplicate";
    handled.add(key);
    if (handled.size > 1000) handled.delete(handled.values().next().value as string);
    const separator = id.indexOf(":");
    const handler = handlers.get(separator > 0 ? id.slice(0, separator) : id);
    let outcome: ChatActionOutcome;
    try {
      outcome = handler
        ? await handler.handler({ channel, contextId, event, value: id.slice(separator + 1) })
        : { answer: "This button no longer does anything." };
    } catch (error) {
      logger.error({ channel, action: id, ...errorFields(error) }, "button press failed");
      outcome = { answer: `That did not work: ${(error as Error).message}` };
    }
    await apply(channel, contextId, event, outcome);
    return "action";
  };
}
