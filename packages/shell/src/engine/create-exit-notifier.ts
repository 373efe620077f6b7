import { join } from "node:path";
import type { ShellSession } from "../session/shell-session.js";
import type { ShellSnapshot } from "../session/snapshot-file.js";
import type { ShellEvent, ShellEventType, ShellExitEvent } from "../shell-event.js";

/** Subscribers of an engine's events and the emission of `shell-exit`, once per session. */
export interface ExitNotifier {
  on<Type extends ShellEventType>(
    type: Type,
    handler: (event: Extract<ShellEvent, { type: Type }>) => void,
  ): () => void;
  /** Emits the exit event of a snapshot (replayed by recovery, or live). */
  emitExit(snapshot: ShellSnapshot, tail: string, replayed: boolean): void;
  /** Called by a session when it becomes final: records and emits its exit event exactly once. */
  onFinal(session: ShellSession): void;
}

/** Creates the event hub of an engine; `isPruning` tells which exits the engine caused to make room. */
export function createExitNotifier(options: {
  stateDir: string;
  isPruning: (session: ShellSession) => boolean;
}): ExitNotifier {
  const handlers = new Map<ShellEventType, Set<(event: ShellEvent) => void>>();

  const emit = (event: ShellEvent): void => {
    for (const handler of [...(handlers.get(event.type) ?? [])]) {
      try {
        handler(event);
      } catch {
        // A failing subscriber must not break the engine or other subscribers.
      }
    }
  };

  const exitEvent = (snapshot: ShellSnapshot, tail: string, replayed: boolean): ShellExitEvent => ({
    type: "shell-exit",
    shell_id: snapshot.shell_id,
    context_id: snapshot.context_id,
    request_id: snapshot.request_id,
    command: snapshot.command,
    mode: snapshot.mode,
    service_name: snapshot.service_name,
    status: snapshot.status,
    exit_code: snapshot.exit_code,
    signal: snapshot.signal,
    duration_ms: Math.max(
      0,
      Date.parse(snapshot.ended_at ?? snapshot.started_at) - Date.parse(snapshot.started_at),
    ),
    bytes_total: snapshot.bytes_total,
    tail,
    log_path: join(options.stateDir, snapshot.shell_id, "output.log"),
    pruned: snapshot.exit_event.pruned,
    replayed,
  });

  return {
    on(type, handler) {
      const set = handlers.get(type) ?? new Set();
      handlers.set(type, set);
      const wrapped = handler as (event: ShellEvent) => void;
      set.add(wrapped);
      return () => {
        set.delete(wrapped);
      };
    },
    emitExit(snapshot, tail, replayed) {
      emit(exitEvent(snapshot, tail, replayed));
    },
    onFinal(session) {
      const snapshot = session.snapshot;
      if (!snapshot.notify || snapshot.exit_event.emitted) return;
      snapshot.exit_event.emitted = true;
      snapshot.exit_event.pruned = options.isPruning(session);
      session.persist();
      emit(exitEvent(snapshot, session.tailText(), false));
    },
  };
}
