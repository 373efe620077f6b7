/** A background shell session as its worker announces it to the others. */
export interface AnnouncedShellSession {
  shellId: string;
  /** The worker whose machine runs it. */
  worker: string;
  contextId: string | null;
  command: string;
  startedAt: string;
}

/** A shell tool call one worker hands to the worker that holds the session. */
export interface ShellCall {
  id: string;
  /** The worker asked to make the call (the session's owner). */
  owner: string;
  requestedBy: string;
  /** The tool's name (`shell_read`, `shell_write`, `shell_status`, `shell_wait`, `shell_close`). */
  tool: string;
  /** The tool's input, as the model gave it. */
  input: Record<string, unknown>;
}

/**
 * Shell calls between the workers of one store: shell sessions stay on the machine that runs them,
 * so a call naming another worker's session is recorded here, its owner makes it and answers, and
 * the caller reads the answer. Each worker also announces its live background sessions, so any
 * worker can find a session's owner by its id. Absent on a store one worker serves.
 */
export interface ShellCallStore {
  /** Replaces the list of live sessions `worker` announces. */
  announce(worker: string, sessions: readonly Omit<AnnouncedShellSession, "worker">[]): Promise<void>;
  /** The worker that announced session `shellId`, if one did. */
  find(shellId: string): Promise<AnnouncedShellSession | undefined>;
  /** Every session the workers announced, oldest start first (`downcity shell list` across workers). */
  list(): Promise<AnnouncedShellSession[]>;
  /** Records a call for `call.owner` and wakes it; returns the call's id. */
  request(call: Omit<ShellCall, "id">): Promise<string>;
  /** Takes the unanswered calls addressed to `worker`, oldest first (each is handed out once). */
  take(worker: string): Promise<ShellCall[]>;
  /** The owner's answer (the tool's result); only the first answer of a call counts. */
  answer(id: string, result: unknown): Promise<void>;
  /** The answer of call `id`, once given. */
  answerOf(id: string): Promise<{ result: unknown } | undefined>;
  /**
   * Calls `listener` when a call or an answer may be waiting (a notification, the slow poll, a
   * reconnect of the listening connection); returns the unsubscribe function.
   */
  onWake(listener: () => void): () => void;
}
