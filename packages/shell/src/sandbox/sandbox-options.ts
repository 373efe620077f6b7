/** How shell commands are confined (opt-in); see the README's security model for what it does not stop. */
export interface ShellSandboxOptions {
  /** Allow network access [false: a private network namespace with only its own loopback]. */
  network?: boolean;
  /** Paths the command may write, relative to the project root or absolute [["."]]. */
  writable?: readonly string[];
  /** Paths kept read-only even inside a writable path, such as the project's `.downcity` state [none]. */
  readOnly?: readonly string[];
  /** Paths hidden: folders behind an empty tmpfs (the user-level token folder), files behind /dev/null (`.env`) [none]. */
  hidden?: readonly string[];
  /** The bubblewrap binary [found on PATH]. */
  bwrapPath?: string;
}
