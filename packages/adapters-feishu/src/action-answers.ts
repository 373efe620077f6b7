/** The private answers (toasts) owed to button presses whose callback is still open. */
export interface ActionAnswers {
  /** A press's callback is open until `close`. */
  open(callbackId: string): void;
  /** Records the answer of an open press; false when its callback was already answered (too late for a toast). */
  answer(callbackId: string, text: string): boolean;
  /** Closes a press's callback and returns the answer given meanwhile, if any. */
  close(callbackId: string): string | undefined;
}

/**
 * Lark answers a card callback with the HTTP (or long-connection) response itself: a toast shows only if
 * its text is known before that response goes out. The host answers a press while it accepts the event,
 * so the answer is kept here until the accept settles and then sent as the callback's toast.
 */
export function createActionAnswers(): ActionAnswers {
  const open = new Map<string, string | undefined>();
  return {
    open(callbackId) {
      open.set(callbackId, undefined);
    },
    answer(callbackId, text) {
      if (!open.has(callbackId)) return false;
      open.set(callbackId, text);
      return true;
    },
    close(callbackId) {
      const text = open.get(callbackId);
      open.delete(callbackId);
      return text;
    },
  };
}
