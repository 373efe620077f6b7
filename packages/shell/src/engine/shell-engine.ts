import type { CommandCheck } from "../policy/command-check.js";
import type { ShellSandboxOptions } from "../sandbox/sandbox-options.js";
import type { ShellEvent, ShellEventType } from "../shell-event.js";
import type { ShellId } from "../shell-id.js";
import type {
  ShellCloseInput,
  ShellExecInput,
  ShellListInput,
  ShellReadInput,
  ShellStartInput,
  ShellStatusInput,
  ShellWaitInput,
  ShellWriteInput,
} from "../shell-inputs.js";
import type {
  ShellExecResult,
  ShellReadResult,
  ShellStartResult,
  ShellStatusResult,
  ShellWaitResult,
  ShellWriteResult,
} from "../shell-results.js";

/** Limits of an engine; defaults in brackets. */
export interface ShellEngineLimits {
  /** Sessions held in memory [64]; starting one more evicts the least recently used. */
  maxSessions?: number;
  /** The most recently started running sessions never evicted [8]. */
  protectedRecent?: number;
  /** Cap of each output.log [64 MiB]. */
  logBytes?: number;
  /** First bytes kept in memory [64 KiB]. */
  headBytes?: number;
  /** Last bytes kept in memory [1 MiB]. */
  tailBytes?: number;
  /** Output after which a runaway session is closed [1 GiB]. */
  maxOutputBytes?: number;
}

/** Options of `createShellEngine`. */
export interface ShellEngineOptions {
  /** Project root: default working directory. */
  rootDir: string;
  /** Where sessions persist [rootDir/.downcity/shell]. */
  stateDir?: string;
  /** Where children's variables come from [process.env]; only the minimal set and `passEnv` reach them. */
  env?: Record<string, string | undefined>;
  /**
   * Variables of `env` passed besides the minimal set (PATH, HOME, USER, LANG, LC_*, TERM, SHELL,
   * TMPDIR, TZ): names or globs, `*` matching any run of characters; `["*"]` passes everything
   * but secrets [none].
   */
  passEnv?: readonly string[];
  /** Values set in every child [none]. */
  setEnv?: Record<string, string>;
  /** Variables (names or patterns) the host marks secret: never passed by a glob, only when `passEnv` names them exactly. */
  secretEnv?: ReadonlyArray<string | RegExp>;
  /** Shell that runs commands with `-c` [/bin/bash, else /bin/sh]. */
  shell?: string;
  /**
   * Where `downcity …` inside the shell reaches the host: DC_CTX_SERVER_HOST/PORT and DC_CTX_TOKEN;
   * a token function is asked once per session, so each gets its own (scoped) credential.
   */
  server?: {
    host?: string;
    port?: number | string;
    token?: string | ((session: { shellId: string; contextId?: string }) => string | undefined);
  };
  /** A host policy run before every exec and start; a refusal is a COMMAND_REFUSED error [none]. */
  checkCommand?: CommandCheck;
  /** Run every command under bubblewrap (opt-in); creating the engine fails when bwrap is unusable [off]. */
  sandbox?: ShellSandboxOptions;
  limits?: ShellEngineLimits;
  /**
   * How processes are found for close, timeouts and recovery [auto: /proc when present, else
   * `ps`]; `ps` cannot read environments, see the README for what it misses.
   */
  processTable?: "auto" | "procfs" | "ps";
  /** Clock, injectable for tests [Date.now]. */
  now?: () => number;
}

/** Per-call facts the host passes along (the tools fill them from their options). */
export interface ShellCallOptions {
  contextId?: string;
  requestId?: string;
}

/** The shell session engine: every method takes its tool's input object and returns plain JSON. */
export interface ShellEngine {
  readonly stateDir: string;
  exec(input: ShellExecInput, call?: ShellCallOptions): Promise<ShellExecResult>;
  start(input: ShellStartInput, call?: ShellCallOptions): Promise<ShellStartResult>;
  status(input: ShellStatusInput): Promise<ShellStatusResult>;
  read(input: ShellReadInput): Promise<ShellReadResult>;
  write(input: ShellWriteInput): Promise<ShellWriteResult>;
  wait(input: ShellWaitInput): Promise<ShellWaitResult>;
  close(input: ShellCloseInput): Promise<ShellStatusResult>;
  list(input?: ShellListInput): Promise<ShellStatusResult[]>;
  /** Closes every live session (daemon shutdown). */
  closeAll(options?: { grace_ms?: number }): Promise<void>;
  /** Marks sessions of a dead engine `lost` (killing survivors) and re-emits unacknowledged exit events. */
  recover(): Promise<{ lost: ShellId[]; replayed: ShellId[] }>;
  /** Resolves once every pending snapshot.json write has landed. */
  flush(): Promise<void>;
  /** Records that the host delivered a session's `shell-exit` event, so recover() will not replay it. */
  ackExit(shellId: string): Promise<void>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<Type extends ShellEventType>(
    type: Type,
    handler: (event: Extract<ShellEvent, { type: Type }>) => void,
  ): () => void;
}
