import type { ModelMessage } from "ai";
import { historyToModelMessages } from "../prompt/model-messages.js";
import type { PendingRun, RunDeps, RunScope } from "./run-scope.js";
import { stampRequest } from "./start-run.js";

/** The messages of a run's context the model sees, and those that join the run while it goes. */
export interface RunArrivals {
  /** The history messages in the model's view: the window, plus what joined since. */
  visibleIds(): Set<string>;
  /** The history window the model was given (a retry after an overflow sends a smaller one). */
  windowSent(ids: Set<string>): void;
  /** At a step boundary: the messages queued meanwhile, persisted and answered by this run. */
  take(step: number): Promise<ModelMessage[]>;
}

/**
 * Lets messages that arrive during a run join it at the next step: they are taken from the lane,
 * stamped and stored, their senders wait for this run's result, and the model sees them next.
 */
export function createRunArrivals(
  deps: Pick<RunDeps, "emit" | "logger" | "media">,
  scope: RunScope,
  lane: { participants: PendingRun[]; drain: () => PendingRun[] },
): RunArrivals {
  const { contextId, requestId } = scope;
  let visible = new Set<string>();
  return {
    visibleIds: () => visible,
    windowSent(ids) {
      visible = ids;
    },
    async take(step) {
      const arrived = lane.drain();
      if (arrived.length === 0) return [];
      for (const pending of arrived) stampRequest(pending, requestId);
      lane.participants.push(...arrived);
      const messages = arrived.map((pending) => pending.historyMessage);
      await scope.history.append(messages);
      for (const message of messages) visible.add(message.id);
      deps.emit({
        type: "message-merged",
        contextId,
        requestId,
        step,
        messageIds: messages.map((message) => message.id),
      });
      deps.logger.info({ step, merged: arrived.length }, "merged new messages into the run");
      return historyToModelMessages(messages, deps.media);
    },
  };
}
