import { reachedStepLimit, stepLimitNotice } from "./run-notice.js";
import type { AssistantPart, RunOutcome } from "./run-result.js";
import type { RunScope } from "./run-scope.js";

/** What a completed run said in its chat: the text that reached it, and the parts to add to history. */
export interface FinalAnswer {
  text: string;
  /** Text the runtime added (the step-limit notice), stored after the run's steps. */
  parts: AssistantPart[];
}

/**
 * Delivers the end of a completed run. The text the model wrote after its last `chat_send` is the
 * answer and is delivered, unless it repeats a text `chat_send` already delivered; a run that
 * reached the step limit ends with a notice saying so. Replies go out before the answer is stored:
 * a replay that finds the answer knows they were sent.
 */
export async function deliverFinalAnswer(
  scope: RunScope,
  outcome: Extract<RunOutcome, { status: "completed" }>,
): Promise<FinalAnswer> {
  const said = [...scope.sent];
  const finalText = outcome.finalText.trim();
  if (finalText && !scope.sent.some((text) => text.trim() === finalText)) {
    await scope.deliver(outcome.finalText, "final-text");
    said.push(outcome.finalText);
  }
  const parts: AssistantPart[] = [];
  if (reachedStepLimit(outcome.steps)) {
    // A journaled run counts the steps of every attempt and stream, as its limit does.
    const notice = stepLimitNotice(scope.recorder?.step() ?? outcome.steps.length);
    await scope.deliver(notice, "final-text");
    said.push(notice);
    parts.push({ type: "text", text: notice });
  }
  return { text: said.join("\n\n"), parts };
}
