import type { JSX } from "preact";
import type { ShellEntry } from "./run-timeline.js";

/** The shell sessions a run started (from its journal's `shell` records); nothing when it started none. */
export function RunShellSessions(props: { shells: ShellEntry[] }): JSX.Element | null {
  if (props.shells.length === 0) return null;
  return (
    <>
      <h3>Shell sessions</h3>
      <ul class="shell-sessions" data-testid="run-shells">
        {props.shells.map((shell) => (
          <li key={shell.shellId}>
            <code>{shell.shellId}</code> {shell.mode}
            {shell.serviceName ? ` ${shell.serviceName}` : ""}, {shell.status}: <code>{shell.command}</code>
          </li>
        ))}
      </ul>
    </>
  );
}
