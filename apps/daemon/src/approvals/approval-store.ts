import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { downcityPaths, writeFileAtomic } from "@downcity/core/primitives";
import { z } from "zod";

/** The request's message with its buttons, as the channel sent it (the platform's message id). */
const sentMessageSchema = z.object({
  channel: z.string(),
  target: z.object({
    chatId: z.string(),
    chatType: z.enum(["direct", "group"]).optional(),
    threadId: z.string().optional(),
    replyToMessageId: z.string().optional(),
  }),
  messageId: z.string(),
});
const pendingSchema = z.object({
  code: z.string(),
  /** As shown: secrets masked. */
  command: z.string(),
  /** As the model asked for it, run if the request outlives its run (a restart). */
  raw: z.string(),
  cwd: z.string(),
  tty: z.boolean(),
  contextId: z.string(),
  requestId: z.string().optional(),
  /** The chat the request went to. */
  route: z.object({ channel: z.string(), chatId: z.string(), threadId: z.string().optional() }).optional(),
  reason: z.string().optional(),
  /** Kept once sent, so a decision after a restart still removes the request's buttons. */
  message: sentMessageSchema.optional(),
  /** Set when a tool call (an MCP or plug-in tool declaring needsApproval) waits, not a shell command. */
  tool: z.object({ name: z.string(), input: z.unknown(), toolCallId: z.string().optional() }).optional(),
  prefixes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
});
const decisionSchema = z.object({
  code: z.string(),
  command: z.string(),
  contextId: z.string(),
  decision: z.enum(["once", "always", "deny", "timeout"]),
  by: z.string(),
  at: z.string(),
});
const ruleSchema = z.object({ pattern: z.string(), by: z.string(), at: z.string() });
const fileSchema = z.object({
  version: z.literal(1),
  rules: z.array(ruleSchema).default([]),
  pending: z.array(pendingSchema).default([]),
  decided: z.array(decisionSchema).default([]),
});

/** A command waiting for a human, as `.downcity/approvals.json` keeps it (it survives a restart). */
export type PendingApproval = z.output<typeof pendingSchema>;
/** One answer (or timeout), kept for `downcity approvals list` and the journal. */
export type ApprovalDecision = z.output<typeof decisionSchema>;
/** A prefix approved with "always". */
export type ApprovalRule = z.output<typeof ruleSchema>;
type ApprovalsFile = z.output<typeof fileSchema>;

const keptDecisions = 200;

/**
 * `.downcity/approvals.json`: the "always" rules, the pending requests and the last decisions.
 * Every change is written atomically before it takes effect, so a killed daemon finds its pending
 * requests again. One daemon owns the file (the project's lock).
 */
export interface ApprovalStore {
  read(): ApprovalsFile;
  update(change: (file: ApprovalsFile) => void): Promise<ApprovalsFile>;
}

export function openApprovalStore(rootDir: string): ApprovalStore {
  const path = downcityPaths(rootDir).approvalsFile;
  const read = (): ApprovalsFile => {
    try {
      return fileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return { version: 1, rules: [], pending: [], decided: [] };
      throw new Error(`${path} is not a valid approvals file: ${String(error)}`);
    }
  };
  let chain: Promise<unknown> = Promise.resolve();
  return {
    read,
    update(change) {
      const next = chain.then(async () => {
        const file = read();
        change(file);
        file.decided = file.decided.slice(-keptDecisions);
        await mkdir(dirname(path), { recursive: true });
        await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
        return file;
      });
      chain = next.catch(() => undefined);
      return next;
    },
  };
}
