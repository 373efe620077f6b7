import { isAbsolute, resolve } from "node:path";
import {
  type ApprovalRecord,
  type ChannelAction,
  currentRequestContext,
  errorFields,
  type Logger,
  type SentMessage,
  whileRunWaits,
} from "@downcity/core";
import type { BashCommandParser } from "@downcity/skills";
import { approvalButtons } from "./approval-buttons.js";
import { newApprovalCode, normalizeCode } from "./approval-code.js";
import { approvalOutcomeText, approvalRequestText, modelRefusalText } from "./approval-messages.js";
import type { ApprovalStore, PendingApproval } from "./approval-store.js";
import type { ApprovalsConfig } from "./approvals-section.js";
import type { ChatNotices } from "./chat-notices.js";
import type { FloorPlaces } from "./command-floor.js";
import { commandVerdict } from "./command-verdict.js";

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
  /** Runs an approved command whose run is gone (the daemon restarted meanwhile). */
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
  pending(): PendingApproval[];
  /** Re-arms the timers of requests a previous daemon left pending (expired ones are denied). */
  recover(): Promise<void>;
  close(): void;
}

const requestSuffix = "request";
/** The outbox key of a request's message (a notice key: `approval:<code>:<suffix>`). */
const requestKey = (code: string) => `approval:${code}:${requestSuffix}`;
/** The code of a request's message from its outbox key (or that of its last chunk, `<key>.<n>`). */
const requestCodeOf = (key: string) => /^approval:([A-Z0-9]+):request(?:\.\d+)?$/.exec(key)?.[1];

/** How a request ended. */
export type Outcome = "once" | "always" | "deny" | "timeout";

/** The journal record of a request (`requested`) or its decision: what waited, who answered. */
function approvalRecordOf(
  pending: PendingApproval,
  state: ApprovalRecord["state"],
  by: string | undefined,
): Omit<ApprovalRecord, "v" | "at" | "type"> {
  return {
    code: pending.code,
    state,
    subject: pending.tool
      ? { kind: "tool", toolName: pending.tool.name, input: pending.tool.input }
      : { kind: "command", command: pending.command },
    ...(pending.tool?.toolCallId ? { toolCallId: pending.tool.toolCallId } : {}),
    ...(by ? { by } : {}),
    ...(state === "always" ? { rules: pending.prefixes } : {}),
  };
}

/** Creates the gate; plug `check` into the shell engine after the project's other checks. */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { config, store, logger } = options;
  const now = options.now ?? Date.now;
  const waiters = new Map<string, (outcome: Outcome, by: string) => void>();
  const timers = new Map<string, NodeJS.Timeout>();
  // Approved commands whose run is gone, let through once when runOrphan runs them.
  const preapproved = new Set<string>();
  // Who answered, for the model's refusal text.
  const answeredBy = new Map<string, string>();

  const tell = async (pending: PendingApproval, suffix: string, text: string, actions?: ChannelAction[]) => {
    if (!pending.route) return;
    try {
      await options.notify(
        pending.route,
        pending.contextId,
        `approval:${pending.code}:${suffix}`,
        text,
        actions,
      );
    } catch (error) {
      logger.warn({ code: pending.code, ...errorFields(error) }, "could not post an approval notice");
    }
  };

  // The request's buttons go once it is settled, by a press, a command, the CLI, the console or the timer.
  const closeRequest = async (pending: PendingApproval, text: string): Promise<boolean> => {
    if (!pending.route || !options.edit) return false;
    try {
      return await options.edit(requestKey(pending.code), text, pending.message);
    } catch (error) {
      logger.warn({ code: pending.code, ...errorFields(error) }, "could not edit an approval request");
      return false;
    }
  };

  const settle = async (asked: PendingApproval, outcome: Outcome, by: string): Promise<boolean> => {
    clearTimeout(timers.get(asked.code));
    timers.delete(asked.code);
    // As stored: its sent message is noted after the request was made (a timer holds the request as made).
    const pending = store.read().pending.find((entry) => entry.code === asked.code) ?? asked;
    await store.update((file) => {
      file.pending = file.pending.filter((entry) => entry.code !== pending.code);
      if (outcome === "always") {
        for (const pattern of pending.prefixes)
          if (!file.rules.some((rule) => rule.pattern === pattern))
            file.rules.push({ pattern, by, at: new Date(now()).toISOString() });
      }
      file.decided.push({
        code: pending.code,
        command: pending.command,
        contextId: pending.contextId,
        decision: outcome,
        by,
        at: new Date(now()).toISOString(),
      });
    });
    logger.info({ code: pending.code, outcome, by, contextId: pending.contextId }, "approval settled");
    record(pending, outcome, by);
    const text = approvalOutcomeText(pending, outcome, by, pending.prefixes);
    const edited = await closeRequest(pending, text);
    await tell(pending, outcome, text);
    const waiter = waiters.get(pending.code);
    waiters.delete(pending.code);
    if (waiter) waiter(outcome, by);
    else if (outcome === "once" || outcome === "always") {
      // Its check is over: the engine's call for it must not ask a second time.
      preapproved.add(`${pending.contextId}\0${pending.raw}`);
      await options.runOrphan(pending);
    }
    return edited;
  };

  const arm = (pending: PendingApproval) => {
    const delay = Math.max(0, Date.parse(pending.expiresAt) - now());
    const timer = setTimeout(() => {
      void settle(pending, "timeout", "timeout").catch((error) =>
        logger.warn({ code: pending.code, ...errorFields(error) }, "could not time out an approval"),
      );
    }, delay);
    timer.unref();
    timers.set(pending.code, timer);
  };

  const record = (pending: PendingApproval, state: ApprovalRecord["state"], by?: string) => {
    if (!options.journal || !pending.requestId) return;
    options
      .journal(pending.requestId, approvalRecordOf(pending, state, by))
      .catch((error: unknown) =>
        logger.warn({ code: pending.code, ...errorFields(error) }, "could not journal an approval"),
      );
  };

  // Records a new request, tells its chat, and waits for the answer with the run paused.
  const waitFor = async (pending: PendingApproval, fresh: boolean): Promise<Outcome> => {
    const outcome = new Promise<Outcome>((done) => {
      waiters.set(pending.code, (result, by) => {
        answeredBy.set(pending.code, by);
        done(result);
      });
    });
    if (fresh) {
      await store.update((file) => {
        file.pending.push(pending);
      });
      arm(pending);
      await tell(
        pending,
        requestSuffix,
        approvalRequestText(pending, { timeoutMs: config.timeoutMs, approvers: [...approvers] }),
        approvalButtons(pending),
      );
      record(pending, "requested");
    }
    return whileRunWaits(() => outcome);
  };

  const ask = async (pending: PendingApproval): Promise<Outcome> => {
    const key = `${pending.contextId}\0${pending.raw}`;
    if (preapproved.delete(key)) return "once";
    const earlier = store
      .read()
      .pending.find(
        (entry) =>
          entry.contextId === pending.contextId && entry.raw === pending.raw && !waiters.has(entry.code),
      );
    return waitFor(earlier ?? pending, earlier === undefined);
  };

  const approvers = new Set(options.approvers);

  return {
    async check(request) {
      if (config.mode === "off") return undefined;
      if (preapproved.delete(`${request.contextId}\0${request.command}`)) return undefined;
      const cwd =
        request.cwd === undefined
          ? options.places.rootDir
          : isAbsolute(request.cwd)
            ? request.cwd
            : resolve(options.places.rootDir, request.cwd);
      const verdict = await commandVerdict({
        parser: options.parser,
        command: request.command,
        patterns: {
          allow: config.allow,
          deny: config.deny,
          always: store.read().rules.map((rule) => rule.pattern),
        },
        places: { ...options.places, cwd },
      });
      if (verdict.kind === "allow") return undefined;
      if (verdict.kind === "deny") return `Command refused: ${verdict.reason}. No approval can lift this.`;
      // The operator's own CLI calls carry no context: they are not the agent's.
      if (request.contextId === undefined) return undefined;
      const shown = options.mask(request.command);
      if (config.mode === "deny")
        return modelRefusalText(shown, "mode-deny", `Not covered: ${verdict.uncovered.join("; ")}.`);
      const route = request.contextId.startsWith("task-run:")
        ? undefined
        : await options.route(request.contextId);
      if (!route) return modelRefusalText(shown, "unanswerable");
      const requestId = currentRequestContext()?.requestId;
      const pending: PendingApproval = {
        code: newApprovalCode(new Set(store.read().pending.map((entry) => entry.code))),
        command: shown,
        raw: request.command,
        cwd,
        tty: request.tty,
        contextId: request.contextId,
        ...(requestId ? { requestId } : {}),
        route,
        prefixes: verdict.prefixes,
        createdAt: new Date(now()).toISOString(),
        expiresAt: new Date(now() + config.timeoutMs).toISOString(),
      };
      const result = await ask(pending);
      if (result === "once" || result === "always") return undefined;
      return modelRefusalText(shown, result, `by ${answeredBy.get(pending.code) ?? "an approver"}`);
    },

    ask,

    async answer(answer) {
      const code = normalizeCode(answer.code);
      const pending = store.read().pending.find((entry) => entry.code === code);
      if (!pending) {
        const decided = store.read().decided.findLast((entry) => entry.code === code);
        return {
          ok: false,
          message: decided
            ? `${code} is already settled (${decided.decision} by ${decided.by}); nothing to do.`
            : `No pending approval has the code ${code}. "downcity approvals list" shows the pending ones.`,
        };
      }
      const edited = await settle(pending, answer.decision, answer.by);
      return {
        ok: true,
        message: approvalOutcomeText(pending, answer.decision, answer.by, pending.prefixes),
        edited,
      };
    },

    isApprover: (who) => approvers.has(who),

    async requestSent(key, sent) {
      const code = requestCodeOf(key);
      if (!code) return;
      try {
        await store.update((file) => {
          const pending = file.pending.find((entry) => entry.code === code);
          if (pending) pending.message = sent;
        });
      } catch (error) {
        logger.warn({ code, ...errorFields(error) }, "could not keep an approval request's message");
      }
    },

    pending: () => store.read().pending,

    async recover() {
      for (const pending of store.read().pending) arm(pending);
    },

    close() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
