import type { ShellSession } from "../session/shell-session.js";
import { compilePattern, patternSeen } from "./output-pattern.js";
import { probePort } from "./probe-port.js";

// A listing must stay quick: one short connection attempt per service that is not ready yet.
const PROBE_MS = 100;

/**
 * Re-checks a running service that was not ready when `shell_start` returned (its port now
 * accepts, or its output now matches), so listings show readiness as it is.
 */
export async function refreshReadiness(session: ShellSession): Promise<void> {
  const s = session.snapshot;
  if (s.mode !== "service" || s.ready !== false || session.isFinal) return;
  const pattern = s.ready_pattern ? compilePattern(s.ready_pattern, "ready_pattern") : undefined;
  const ready =
    (pattern !== undefined && patternSeen(session.output, pattern, 0)) ||
    (typeof s.ready_port === "number" && (await probePort(s.ready_port, PROBE_MS)));
  if (!ready) return;
  s.ready = true;
  session.persist();
}
