/**
 * The run journal: one append-only record stream per run (schema version `runJournalVersion`).
 * Every record carries `v` (the schema version), `type` and `at` (ISO time it was written); readers
 * skip types they do not know, so a later version may add types without breaking them. The format
 * is documented in the core README ("Run journal").
 */
export const runJournalVersion = 1;

/** How a run ended; `running` while it has no `end` record (a crashed run reads as running until resumed). */
export type JournalOutcome = "completed" | "aborted" | "failed" | "interrupted";

/** Token counts, as the run's usage. */
export interface JournalUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  totalTokens: number;
}

interface RecordBase {
  v: typeof runJournalVersion;
  at: string;
}

/** The first record of a run: who started it, where it replies, which model with which settings. */
export interface RunStartRecord extends RecordBase {
  type: "run";
  requestId: string;
  contextId: string;
  /** History ids of the messages that started the run, and their channel event ids when they have one. */
  messageIds: string[];
  eventIds: string[];
  origin: "user" | "internal";
  route?: { channel?: string; chatId?: string; userId?: string; threadId?: string };
  worker?: string;
  model?: { provider: string; modelId: string };
  settings: { maxSteps: number; keepLast: number };
}

/** A further attempt of the same run (a restart resumed it, or a retry after a failed model call). */
export interface RunAttemptRecord extends RecordBase {
  type: "attempt";
  attempt: number;
  /** The finished steps it continues from. */
  fromStep: number;
  reason: "restart" | "retry";
  /** The worker that continues the run (another than the `run` record's after a failover). */
  worker?: string;
}

/** Content stored once and referred to by its hash (system messages). */
export interface ContentRecord extends RecordBase {
  type: "content";
  hash: string;
  content: unknown;
}

/** One call to the model, as the language-model middleware saw it. */
export interface ModelCallRecord extends RecordBase {
  type: "model-call";
  step: number;
  /** Why the model was called: a run step, a compaction summary, memory maintenance. */
  purpose: "step" | "compaction" | "memory";
  request: {
    /** Hash of the system messages (stored once in a `content` record). */
    systemHash?: string;
    /** Ids of the history messages in the window, and how many prompt messages were sent in all. */
    historyIds: string[];
    messageCount: number;
    /** Names of the tools offered and a hash of their schemas. */
    tools: string[];
    toolsHash?: string;
  };
  response?: {
    id?: string;
    modelId?: string;
    /** Every content part: text, reasoning, tool calls. */
    content: unknown[];
    finishReason?: string;
    usage: JournalUsage;
    providerMetadata?: unknown;
    warnings?: unknown[];
  };
  error?: string;
  startedAt: string;
  latencyMs: number;
}

/** A tool call began (written durably before the tool runs). */
export interface ToolStartRecord extends RecordBase {
  type: "tool-start";
  step: number;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A tool call ended with an output or an error. */
export interface ToolEndRecord extends RecordBase {
  type: "tool-end";
  step: number;
  toolCallId: string;
  toolName: string;
  output?: unknown;
  error?: string;
  durationMs: number;
  /** The result was taken from an earlier attempt's record (or marked interrupted), not executed. */
  replayed?: "recorded" | "interrupted";
}

/** A finished step (written at the step boundary, before the next step begins). */
export interface StepRecord extends RecordBase {
  type: "step";
  step: number;
  finishReason: string;
  usage: JournalUsage;
  text: string;
  toolCallIds: string[];
  /** The messages the step added to the prompt (assistant and tool messages), to resume from it. */
  messages: unknown[];
  latencyMs: number;
}

/** A reply the run handed to a channel (or to the chat event stream). */
export interface ReplyRecord extends RecordBase {
  type: "reply";
  /** Outbox key: `<requestId>:<step>:<part>`. */
  key: string;
  step: number;
  via: "chat_send" | "final-text";
  contextId: string;
  text: string;
}

/**
 * A person's approval, asked for or given (written by the host's approval flow): one record when
 * the request goes out (`requested`), one when it is settled (the decision, a timeout included).
 */
export interface ApprovalRecord extends RecordBase {
  type: "approval";
  /** The short code people answer with (`/approve K7Q2`). */
  code: string;
  state: "requested" | "once" | "always" | "deny" | "timeout";
  /** What waited: a shell command (secrets masked) or a tool call. */
  subject: { kind: "command"; command: string } | { kind: "tool"; toolName: string; input: unknown };
  toolCallId?: string;
  /** Who answered: `<channel>:<userId>`, `cli`, `console`, or `timeout`. */
  by?: string;
  /** Patterns an `always` answer stored. */
  rules?: string[];
}

/**
 * A shell session the run started (written by the host's shell, once the session has its id): a
 * command run to completion (`exec`), a background job or a service (`start`). Its output and logs
 * live with the session (`.downcity/shell/<shellId>/`); the tool's own records hold its result.
 */
export interface ShellSessionRecord extends RecordBase {
  type: "shell";
  shellId: string;
  mode: "exec" | "background" | "service";
  /** The command line, secrets masked. */
  command: string;
  serviceName?: string;
  /** How it stood when the tool returned: `exited` for a finished exec, `running` for a started job. */
  status: string;
}

/** The last record of a run. */
export interface RunEndRecord extends RecordBase {
  type: "end";
  outcome: JournalOutcome;
  reason?: string;
  error?: { code?: string; message: string };
  steps: number;
  usage: JournalUsage;
}

/** Any record of a run journal. */
export type JournalRecord =
  | RunStartRecord
  | RunAttemptRecord
  | ContentRecord
  | ModelCallRecord
  | ToolStartRecord
  | ToolEndRecord
  | StepRecord
  | ReplyRecord
  | ApprovalRecord
  | ShellSessionRecord
  | RunEndRecord;

/** A journal record before the driver stamps it: `v` is added when it is written. */
export type NewJournalRecord = JournalRecord extends infer R
  ? R extends JournalRecord
    ? Omit<R, "v">
    : never
  : never;

/** One run in a list: its header, its end (if any) and counts. */
export interface RunSummary {
  requestId: string;
  contextId: string;
  startedAt: string;
  endedAt?: string;
  status: JournalOutcome | "running";
  attempts: number;
  steps: number;
  toolCalls: number;
  usage: JournalUsage;
  model?: { provider: string; modelId: string };
  /** The worker that ran the run's latest attempt (several workers may share one store). */
  worker?: string;
}

/** Filters of `RunJournal.list`. */
export interface RunListFilter {
  contextId?: string;
  /** Runs that started at or after this time. */
  since?: Date;
  status?: RunSummary["status"];
  /** At most this many, newest first [100]. */
  limit?: number;
}

/**
 * Where runs are journaled. `append` resolves once the records are durable (the file driver
 * fdatasyncs, Postgres commits): the run calls it before each tool runs and at the boundary of
 * each step that ran tools; the last step and the end need only survive a killed process.
 */
export interface RunJournal {
  /**
   * Appends to a run's journal; the first record of a run must be its `run` record. Resolves once
   * the records are durable; with `sync: false` once they survive the process being killed (the
   * file driver skips its `fdatasync`; a database commits either way).
   */
  append(requestId: string, records: NewJournalRecord[], options?: { sync?: boolean }): Promise<void>;
  /**
   * Optional: the run that started at `at` (its `run` record's time) will append soon. A driver may
   * ready the run's storage meanwhile, off the turn's thread (the file driver creates the run's file
   * on libuv's thread pool while the model answers). A run prepared but never appended to reads as
   * no run.
   */
  prepare?(requestId: string, at: string): void;
  /** Every record of a run in order, or undefined when no run has that id. */
  read(requestId: string): Promise<JournalRecord[] | undefined>;
  /** Runs matching `filter`, newest first. */
  list(filter?: RunListFilter): Promise<RunSummary[]>;
  /** Deletes the journals of runs that started before `before`; returns how many. */
  prune(before: Date): Promise<number>;
  close(): Promise<void>;
}
