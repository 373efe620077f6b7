/** One reply's place in its run: the outbox key, the step it belongs to and its index in that step. */
export interface ReplyKey {
  /** `<run>:<step>:<part>`: the outbox's idempotency key of the reply (chunks add `.<n>`). */
  key: string;
  step: number;
  part: number;
}

/**
 * The outbox keys of one run's replies, derived from the run and its steps instead of the order
 * replies went out in: a resumed run that sent a progress message before a crash gives its answer
 * a key of its own (a positional key would have collided with the progress message's and the
 * outbox would have swallowed the answer), and an answer the crash kept from being marked sent
 * gets the same key again, so the outbox sends it once.
 */
export interface ReplyKeys {
  /**
   * The key of the next reply. `chat_send` belongs to the step under way; the final text (and the
   * notices that follow it) to the last finished step, whose text it is.
   */
  next(via: "chat_send" | "final-text"): ReplyKey;
  /** The step boundary (the run's step under way moves on). */
  stepFinished(): void;
  /**
   * A resumed run continues its journal's keys: `finishedSteps` the steps earlier attempts
   * finished, `used` the keys they recorded (a part number is never handed out twice in one step).
   * `run` renames the keys (by default they keep the name they were created with).
   */
  continueRun(journaled: { run?: string; finishedSteps: number; used: readonly string[] }): void;
}

/**
 * Creates the reply keys of a run. `run` names the run: the trigger message's id when it has one,
 * the same in every attempt. (Not the requestId: an event replayed after a crash that its journal
 * cannot resume, e.g. batched with a newer message, runs under a new requestId, and keys named
 * after it would send the answer the crashed attempt had already delivered a second time.)
 */
export function createReplyKeys(run: string): ReplyKeys {
  let name = run;
  let finishedSteps = 0;
  // Replies handed out per step (from earlier attempts, then this one).
  let parts = new Map<number, number>();
  return {
    next(via) {
      const step = via === "final-text" ? Math.max(0, finishedSteps - 1) : finishedSteps;
      const part = parts.get(step) ?? 0;
      parts.set(step, part + 1);
      return { key: `${name}:${step}:${part}`, step, part };
    },
    stepFinished() {
      finishedSteps++;
    },
    continueRun(journaled) {
      name = journaled.run ?? name;
      finishedSteps = journaled.finishedSteps;
      parts = new Map();
      for (const key of journaled.used) {
        const parsed = parseReplyKey(key, name);
        if (parsed) parts.set(parsed.step, Math.max(parts.get(parsed.step) ?? 0, parsed.part + 1));
      }
    },
  };
}

/** The step and part of a key `<run>:<step>:<part>` of run `run`, or undefined for another run's key. */
export function parseReplyKey(key: string, run: string): { step: number; part: number } | undefined {
  if (!key.startsWith(`${run}:`)) return undefined;
  const match = /^(\d+):(\d+)$/.exec(key.slice(run.length + 1));
  if (!match) return undefined;
  return { step: Number(match[1]), part: Number(match[2]) };
}
