/** What a session needs from a spawned child, whether it runs on pipes or in a PTY. */
export interface ChildHandle {
  readonly pid: number | undefined;
  /** Writes to stdin; throws when stdin is closed. */
  write(data: string): void;
  /** Closes stdin (pipes) or sends end-of-file (PTY). */
  endInput(): void;
  /** Releases descriptors once the session is final. */
  dispose(): void;
}

/** Callbacks a spawner reports to; `onExit` fires once, only after the output has drained. */
export interface ChildCallbacks {
  /** `source` names the pipe a chunk came from; a PTY has one stream and leaves it out. */
  onData(chunk: Buffer, source?: "stdout" | "stderr"): void;
  onExit(code: number | null, signal: string | null): void;
  onError(error: Error): void;
}

/** How to spawn the child: the shell, its arguments, and where. */
export interface ChildSpawnOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}
