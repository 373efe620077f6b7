import { isAbsolute, resolve } from "node:path";
import {
  type ApprovalDecision,
  type ApprovalRecord,
  type ChannelAction,
  currentRequestContext,
  errorFields,
  whileRunWaits,
} from "@downcity/core";
import { approvalButtons } from "./approval-buttons.js";
import { newApprovalCode, normalizeCode } from "./approval-code.js";
import type { ApprovalGate, ApprovalGateOptions, Outcome } from "./approval-gate-contract.js";
import { approvalOutcomeText, approvalRequestText, modelRefusalText } from "./approval-messages.js";
import { approvalRecordOf, requestCodeOf, requestKey, requestSuffix } from "./approval-record.js";
import type { PendingApproval } from "./approval-store.js";
import { commandVerdict } from "./command-verdict.js";
import { approvalSettledEvent, watchSettledElsewhere } from "./settled-elsewhere.js";

/** Creates the gate; plug `check` into the shell engine after the project's other checks. */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { config, store, logger, workerId } = options;
  const now = options.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  // The runs waiting here, by code, with the request as they asked it.
  const waiters = new Map<string, (decision: ApprovalDecision) => void>();
  const asked = new Map<string, PendingApproval>();
  const timers = new Map<string, NodeJS.Timeout>();
  // Approved requests whose run is gone (context and command -> code): let through once, when
  // runOrphan runs the command, or when the agent calls the approved tool again.
  const preapproved = new Map<string, string>();
  // Who answered, for the model's refusal text.
  const answeredBy = new Map<string, string>();
  const keyOf = (contextId: string, raw: string) => `${contextId}\0${raw}`;
  const alive = async (worker: string) => (options.workerAlive ? options.workerAlive(worker) : false);
  // Another worker's run waits for it: that worker carries the decision out.
  const waitedElsewhere = async (pending: PendingApproval) =>
    pending.worker !== undefined && pending.worker !== workerId && (await alive(pending.worker));

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

  const record = (pending: PendingApproval, state: ApprovalRecord["state"], by?: string) => {
    if (!options.journal || !pending.requestId) return;
    options
      .journal(pending.requestId, approvalRecordOf(pending, state, by))
      .catch((error: unknown) =>
        logger.warn({ code: pending.code, ...errorFields(error) }, "could not journal an approval"),
      );
  };

  // Runs here between asking and waiting, by context and command: a decision made in that gap
  // (after they looked in the store, before their waiter is set) is theirs, kept in `early`.
  const asking = new Map<string, number>();
  const early = new Map<string, { pending: PendingApproval; decision: ApprovalDecision }>();

  // With no live run waiting anywhere, an approved command runs on its own, once (the store's take decides who).
  const carryOutAlone = async (pending: PendingApproval, decision: ApprovalDecision) => {
    if (decision.decision !== "once" && decision.decision !== "always") return;
    // A tool call's approval waits for the agent's next same call, which takes it.
    if (pending.tool) {
      preapproved.set(keyOf(pending.contextId, pending.raw), pending.code);
      return options.runOrphan(pending);
    }
    if (!(await store.take(pending.code, `orphan:${workerId}`))) return;
    // Its check is over: the engine's call for it must not ask a second time.
    preapproved.set(keyOf(pending.contextId, pending.raw), pending.code);
    await options.runOrphan(pending);
  };

  // Hands a decision to the run waiting here, or to one on its way to waiting; else carries it out alone.
  const deliver = async (pending: PendingApproval, decision: ApprovalDecision) => {
    clearTimeout(timers.get(pending.code));
    timers.delete(pending.code);
    const waiter = waiters.get(pending.code);
    if (waiter) {
      waiters.delete(pending.code);
      record(pending, decision.decision, decision.by);
      waiter(decision);
      return;
    }
    if (await waitedElsewhere(pending)) return;
    record(pending, decision.decision, decision.by);
    const key = keyOf(pending.contextId, pending.raw);
    if (asking.has(key)) {
      early.set(key, { pending, decision });
      return;
    }
    await carryOutAlone(pending, decision);
  };

  const settle = async (code: string, outcome: Exclude<Outcome, "taken">, by: string) => {
    clearTimeout(timers.get(code));
    timers.delete(code);
    const result = await store.decide(code, { decision: outcome, by, at: iso() });
    if (!result.settled) return { ...result, edited: false };
    const { pending, decision } = result;
    logger.info({ code, outcome, by, contextId: pending.contextId }, "approval settled");
    options.events
      ?.publish(workerId, [{ type: approvalSettledEvent, contextId: pending.contextId, code }])
      .catch((error: unknown) => logger.warn(errorFields(error), "could not announce an approval decision"));
    const text = approvalOutcomeText(pending, outcome, by, pending.prefixes);
    const edited = await closeRequest(pending, text);
    await tell(pending, outcome, text);
    await deliver(pending, decision);
    return { ...result, edited };
  };

  const arm = (pending: PendingApproval) => {
    if (timers.has(pending.code)) return;
    const delay = Math.max(0, Date.parse(pending.expiresAt) - now());
    const timer = setTimeout(() => {
      void settle(pending.code, "timeout", "timeout").catch((error) =>
        logger.warn({ code: pending.code, ...errorFields(error) }, "could not time out an approval"),
      );
    }, delay);
    timer.unref();
    timers.set(pending.code, timer);
  };

  // A decision another worker made on a request a run here waits for.
  const stopWatching = watchSettledElsewhere({
    store,
    ...(options.events ? { events: options.events } : {}),
    workerId,
    everyMs: options.checkEveryMs ?? 2000,
    logger,
    waiting: () => [...waiters.keys()],
    settled(decision) {
      const pending = asked.get(decision.code);
      if (pending && waiters.has(decision.code)) void deliver(pending, decision);
    },
  });

  // Records a new request (or adopts one a cut-off run left), tells its chat, and waits with the run paused.
  const waitFor = async (pending: PendingApproval, fresh: boolean): Promise<Outcome> => {
    const key = keyOf(pending.contextId, pending.raw);
    const decided = new Promise<ApprovalDecision>((done) => waiters.set(pending.code, done));
    asked.set(pending.code, pending);
    const made = early.get(key);
    if (made?.pending.code === pending.code) {
      early.delete(key);
      waiters.get(pending.code)?.(made.decision);
      waiters.delete(pending.code);
    }
    leaveGap(key);
    if (fresh) {
      arm(pending);
      await tell(
        pending,
        requestSuffix,
        approvalRequestText(pending, { timeoutMs: config.timeoutMs, approvers: [...approvers] }),
        approvalButtons(pending),
      );
      record(pending, "requested");
    } else {
      await store.update(pending.code, { worker: workerId });
      arm(pending);
    }
    const decision = await whileRunWaits(() => decided);
    asked.delete(pending.code);
    return carriedOutHere(pending, decision);
  };

  // The run that asked carries the decision out, unless an orphan run was first (it thought the run gone).
  const carriedOutHere = async (pending: PendingApproval, decision: ApprovalDecision): Promise<Outcome> => {
    answeredBy.set(pending.code, decision.by);
    const took = await store.take(pending.code, workerId);
    if (!took && (decision.decision === "once" || decision.decision === "always")) return "taken";
    return decision.decision;
  };

  const enterGap = (key: string) => asking.set(key, (asking.get(key) ?? 0) + 1);
  // Once no run here is in the gap, a decision nobody took up is carried out alone.
  const leaveGap = (key: string) => {
    const left = (asking.get(key) ?? 0) - 1;
    if (left > 0) {
      asking.set(key, left);
      return;
    }
    asking.delete(key);
    const made = early.get(key);
    if (!made) return;
    early.delete(key);
    void carryOutAlone(made.pending, made.decision).catch((error: unknown) =>
      logger.warn({ code: made.pending.code, ...errorFields(error) }, "could not carry out an approval"),
    );
  };

  // The decision of this run's same request, made while the run was cut off and not yet carried out.
  const decidedForRun = async (pending: PendingApproval): Promise<Outcome | undefined> => {
    if (!pending.requestId) return undefined;
    const decision = (await store.decisions({ contextId: pending.contextId, limit: 50 })).findLast(
      (entry) => entry.requestId === pending.requestId && entry.raw === pending.raw,
    );
    if (!decision) return undefined;
    answeredBy.set(pending.code, decision.by);
    if (decision.takenBy === undefined && (await store.take(decision.code, workerId)))
      return decision.decision;
    return decision.takenBy?.startsWith("orphan:") ? "taken" : undefined;
  };

  const ask = async (pending: PendingApproval): Promise<Outcome> => {
    const key = keyOf(pending.contextId, pending.raw);
    enterGap(key);
    let waited = false;
    try {
      pending.worker = workerId;
      const approvedCode = preapproved.get(key);
      if (approvedCode !== undefined) {
        preapproved.delete(key);
        // Taken here, so the resumed run's same call does not find it untaken and pass a second time.
        if (await store.take(approvedCode, workerId)) return "once";
      }
      const resumed = await decidedForRun(pending);
      if (resumed) return resumed;
      for (const entry of await store.pending()) {
        if (entry.contextId !== pending.contextId || entry.raw !== pending.raw || waiters.has(entry.code))
          continue;
        if (await waitedElsewhere(entry)) continue;
        waited = true;
        return await waitFor(entry, false);
      }
      // Decided while this run looked: no need to ask again.
      const made = early.get(key);
      if (made) {
        early.delete(key);
        answeredBy.set(pending.code, made.decision.by);
        return await carriedOutHere(made.pending, made.decision);
      }
      // A code another worker took a moment ago is drawn again.
      while (!(await store.request(pending)))
        pending.code = newApprovalCode(new Set((await store.pending()).map((entry) => entry.code)));
      waited = true;
      return await waitFor(pending, true);
    } finally {
      if (!waited) leaveGap(key);
    }
  };

  const approvers = new Set(options.approvers);

  return {
    async check(request) {
      if (config.mode === "off") return undefined;
      if (preapproved.delete(keyOf(request.contextId ?? "", request.command))) return undefined;
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
          always: (await store.rules()).map((rule) => rule.pattern),
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
        code: newApprovalCode(new Set((await store.pending()).map((entry) => entry.code))),
        command: shown,
        raw: request.command,
        cwd,
        tty: request.tty,
        contextId: request.contextId,
        ...(requestId ? { requestId } : {}),
        worker: workerId,
        route,
        prefixes: verdict.prefixes,
        createdAt: iso(),
        expiresAt: new Date(now() + config.timeoutMs).toISOString(),
      };
      const result = await ask(pending);
      if (result === "once" || result === "always") return undefined;
      if (result === "taken") return modelRefusalText(shown, "taken");
      return modelRefusalText(shown, result, `by ${answeredBy.get(pending.code) ?? "an approver"}`);
    },

    ask,

    async answer(answer) {
      const code = normalizeCode(answer.code);
      const result = await settle(code, answer.decision, answer.by);
      if (!result.settled)
        return {
          ok: false,
          message: result.decision
            ? `${code} is already settled (${result.decision.decision} by ${result.decision.by}); nothing to do.`
            : `No pending approval has the code ${code}. "downcity approvals list" shows the pending ones.`,
        };
      return {
        ok: true,
        message: approvalOutcomeText(result.pending, answer.decision, answer.by, result.pending.prefixes),
        edited: result.edited,
      };
    },

    isApprover: (who) => approvers.has(who),

    async requestSent(key, sent) {
      const code = requestCodeOf(key);
      if (!code) return;
      try {
        await store.update(code, { message: sent });
      } catch (error) {
        logger.warn({ code, ...errorFields(error) }, "could not keep an approval request's message");
      }
    },

    pending: () => store.pending(),

    async recover() {
      for (const pending of await store.pending()) arm(pending);
    },

    close() {
      stopWatching();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
