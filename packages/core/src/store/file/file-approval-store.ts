import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { DowncityError } from "../../errors/downcity-error.js";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import {
  type ApprovalDecision,
  type ApprovalStore,
  approvalDecisionSchema,
  approvalRuleSchema,
  pendingApprovalSchema,
} from "../approval-store.js";
import { readStateFile } from "./read-state-file.js";

const fileSchema = z.object({
  version: z.literal(1),
  rules: z.array(approvalRuleSchema).default([]),
  pending: z.array(pendingApprovalSchema).default([]),
  decided: z.array(approvalDecisionSchema).default([]),
});
type ApprovalsFile = z.output<typeof fileSchema>;

/** Decisions kept in the file (`downcity approvals list` shows the last ten). */
const keptDecisions = 200;

/**
 * The approval store's file driver: `.downcity/approvals.json` (rules, pending requests, the last
 * decisions). Every change is read, applied and written atomically in one queue before it takes
 * effect, so a killed daemon finds its pending requests again. One process serves it (the daemon).
 */
export function openFileApprovalStore(path: string): ApprovalStore {
  const read = async (): Promise<ApprovalsFile> => {
    const raw = await readStateFile(path);
    if (raw === undefined) return { version: 1, rules: [], pending: [], decided: [] };
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success)
      throw new DowncityError(
        "CONFIG_INVALID",
        `${path} is not a valid approvals file: ${parsed.error.message}. Fix or delete the file.`,
        { field: path, cause: parsed.error },
      );
    return parsed.data;
  };
  let chain: Promise<unknown> = Promise.resolve();
  // Reads and changes go through one queue: a decision is a compare-and-set within it.
  const locked = <T>(work: (file: ApprovalsFile) => T, write: boolean): Promise<T> => {
    const next = chain.then(async () => {
      const file = await read();
      const result = work(file);
      if (write) {
        file.decided = file.decided.slice(-keptDecisions);
        await mkdir(dirname(path), { recursive: true });
        await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
      }
      return result;
    });
    chain = next.catch(() => undefined);
    return next;
  };
  const newest = (file: ApprovalsFile, code: string) => file.decided.findLast((entry) => entry.code === code);
  return {
    request: (pending) =>
      locked((file) => {
        if (file.pending.some((entry) => entry.code === pending.code)) return false;
        file.pending.push(pending);
        return true;
      }, true),
    pending: () => locked((file) => file.pending, false),
    get: (code) => locked((file) => file.pending.find((entry) => entry.code === code), false),
    update: (code, change) =>
      locked((file) => {
        const pending = file.pending.find((entry) => entry.code === code);
        if (!pending) return;
        if (change.message) pending.message = change.message;
        if (change.worker) pending.worker = change.worker;
      }, true),
    decide: (code, verdict) =>
      locked((file) => {
        const pending = file.pending.find((entry) => entry.code === code);
        if (!pending) {
          const earlier = newest(file, code);
          return earlier ? { settled: false as const, decision: earlier } : { settled: false as const };
        }
        file.pending = file.pending.filter((entry) => entry.code !== code);
        if (verdict.decision === "always")
          for (const pattern of pending.prefixes)
            if (!file.rules.some((rule) => rule.pattern === pattern))
              file.rules.push({ pattern, by: verdict.by, at: verdict.at });
        const decision: ApprovalDecision = {
          code,
          command: pending.command,
          contextId: pending.contextId,
          ...verdict,
          ...(pending.requestId ? { requestId: pending.requestId } : {}),
          raw: pending.raw,
        };
        file.decided.push(decision);
        return { settled: true as const, pending, decision };
      }, true),
    decision: (code) => locked((file) => newest(file, code), false),
    decisions: (options = {}) =>
      locked(
        (file) =>
          file.decided
            .filter((entry) => options.contextId === undefined || entry.contextId === options.contextId)
            .slice(-(options.limit ?? keptDecisions)),
        false,
      ),
    take: (code, by) =>
      locked((file) => {
        const decision = newest(file, code);
        if (!decision || decision.takenBy !== undefined) return false;
        decision.takenBy = by;
        return true;
      }, true),
    rules: () => locked((file) => file.rules, false),
    revokeRule: (pattern) =>
      locked((file) => {
        const before = file.rules.length;
        file.rules = file.rules.filter((rule) => rule.pattern !== pattern);
        return file.rules.length < before;
      }, true),
  };
}
