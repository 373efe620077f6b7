import type { ApprovalRecord, ClusterEventBus, Logger, SentMessage } from "@downcity/core";
import type { BashCommandParser } from "@downcity/skills";
import type { ApprovalStore, PendingApproval } from "./approval-store.js";
import type { ApprovalsConfig } from "./approvals-section.js";
import type { ChatNotices } from "./chat-notices.js";
import type { FloorPlaces } from "./command-floor.js";

// The approval gate's contract: what the daemon gives it, and what its users (the shell check, the
// chat commands, the buttons, the service and the console) may ask of it.

/** Where a request is shown: a chat of a channel. */
export interface ApprovalRoute {
  channel: string;
  chatId: string;
  threadId?: string;
}

/** An answer: once, always (store the prefixes), or deny; `by` is `<channel>:<userId>`, `cli` or `console`. */
export interface ApprovalAnswer {
  code: string;
  decision: "once" | "always" | "deny";
  by: string;
}

/**
 * Options of `createApprovalGate`. `route` and `notify` are the chat notices' (`route` resolves
 * undefined when nobody in a chat can answer the run, a task run).
 */
export interface ApprovalGateOptions extends Pick<ChatNotices, "route" | "notify"> {
  places: Omit<FloorPlaces, "cwd">;
  config: ApprovalsConfig;
  /** Who may answer in chats (`<channel>:<userId>`): `approvals.approvers`, else the hand-made allow lists. */
  approvers: readonly string[];
  store: ApprovalStore;
  parser: BashCommandParser;
  logger: Logger;
  /** This worker's id: a request names the worker whose run waits for it. */
  workerId: string;
  /** Live events between workers (a shared store): a decision is announced at once to the worker that waits. */
  events?: ClusterEventBus;
  /**
   * Whether `worker` still runs (its liveness lease is live). Absent (one worker), every other worker
   * counts as gone: it was this daemon before a restart.
   */
  workerAlive?(worker: string): Promise<boolean>;
  /** How often a waiting run looks for a decision another worker made, in case its event was missed [2000]. */
  checkEveryMs?: number;
  /** Runs an approved command whose run is gone (the daemon restarted, or its worker died). */
  runOrphan(pending: PendingApproval): Promise<void>;
  /** Masks secrets in a command before it is shown or stored. */
  mask(text: string): string;
  /**
   * Writes a request and its decision to the run journal of the run that asked (`approval`
   * records); failures are the caller's to log, never the gate's to throw.
   */
  journal?(requestId: string, record: Omit<ApprovalRecord, "v" | "at" | "type">): Promise<void>;
  /**
   * Replaces the request's message (under its notice key, else the `known` message kept with the
   * request) with `text` and removes its buttons, where the chat can edit; true when it did. Called
   * once a request is settled, whoever settled it, on whichever daemon.
   */
  edit?(key: string, text: string, known?: SentMessage): Promise<boolean>;
  now?: () => number;
}

/** The approval flow of one daemon. */
export interface ApprovalGate {
  /** The shell engine's check: resolves to a refusal, or undefined once the command may run. */
  check(request: {
    command: string;
    tty: boolean;
    contextId?: string;
    cwd?: string;
  }): Promise<string | undefined>;
  /**
   * Asks for `pending` in its chat and waits (the run paused) for the answer or the timeout. A request
   * the same context already has pending with nobody waiting (its run was cut off by a restart) is
   * waited on again instead of asked twice; one approved meanwhile passes at once.
   */
  ask(pending: PendingApproval): Promise<Outcome>;
  /**
   * Settles a pending request; the message is the answer to show whoever answered, `edited` true
   * when the request's message already shows it (its buttons removed).
   */
  answer(answer: ApprovalAnswer): Promise<{ ok: boolean; message: string; edited?: boolean }>;
  /** Whether `who` (`<channel>:<userId>`) may answer requests shown in chats. */
  isApprover(who: string): boolean;
  /**
   * Keeps the message a request went out as (`key` is its outbox key), so a decision after a
   * restart still removes its buttons; other keys are ignored. Never rejects.
   */
  requestSent(key: string, sent: SentMessage): Promise<void>;
  pending(): Promise<PendingApproval[]>;
  /** Re-arms the timers of requests a previous daemon left pending (expired ones are denied). */
  recover(): Promise<void>;
  close(): void;
}

/**
 * How a request ended for the run that asked: `taken` when it was approved after the run was cut
 * off and already ran on its own (an orphan run), so the resumed run must not run it again.
 */
export type Outcome = "once" | "always" | "deny" | "timeout" | "taken";
