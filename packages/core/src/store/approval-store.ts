import { z } from "zod";

/** The request's message with its buttons, as the channel sent it (the platform's message id). */
export const sentApprovalMessageSchema = z.object({
  channel: z.string(),
  target: z.object({
    chatId: z.string(),
    chatType: z.enum(["direct", "group"]).optional(),
    threadId: z.string().optional(),
    replyToMessageId: z.string().optional(),
  }),
  messageId: z.string(),
});

/** A command (or tool call) waiting for a human, as every approval store keeps it. */
export const pendingApprovalSchema = z.object({
  code: z.string(),
  /** As shown: secrets masked. */
  command: z.string(),
  /** As the model asked for it, run if the request outlives its run (a restart). */
  raw: z.string(),
  cwd: z.string(),
  tty: z.boolean(),
  contextId: z.string(),
  requestId: z.string().optional(),
  /** The worker whose run waits for the answer (the one that asked, or the one that resumed the run). */
  worker: z.string().optional(),
  /** The chat the request went to. */
  route: z.object({ channel: z.string(), chatId: z.string(), threadId: z.string().optional() }).optional(),
  reason: z.string().optional(),
  /** Kept once sent, so a decision after a restart (or on another worker) still removes the buttons. */
  message: sentApprovalMessageSchema.optional(),
  /** Set when a tool call (an MCP or plug-in tool declaring needsApproval) waits, not a shell command. */
  tool: z.object({ name: z.string(), input: z.unknown(), toolCallId: z.string().optional() }).optional(),
  prefixes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
});

/** One answer (or timeout), kept for `downcity approvals list`, the journal and a resumed run. */
export const approvalDecisionSchema = z.object({
  code: z.string(),
  command: z.string(),
  contextId: z.string(),
  decision: z.enum(["once", "always", "deny", "timeout"]),
  by: z.string(),
  at: z.string(),
  /** The run that asked, and the command as asked: a resumed run finds its decision by them. */
  requestId: z.string().optional(),
  raw: z.string().optional(),
  /**
   * Who carried the decision out, set once: `<worker>` for the run that waited (or resumed),
   * `orphan:<worker>` for an approved command run on its own because its run was gone.
   */
  takenBy: z.string().optional(),
});

/** A prefix (or `Tool(<name>)`) approved with "always". */
export const approvalRuleSchema = z.object({ pattern: z.string(), by: z.string(), at: z.string() });

/** A request waiting for a human. */
export type PendingApproval = z.output<typeof pendingApprovalSchema>;
/** The message a request went out as. */
export type SentApprovalMessage = z.output<typeof sentApprovalMessageSchema>;
/** How a request was settled. */
export type ApprovalDecision = z.output<typeof approvalDecisionSchema>;
/** A rule stored by an "always" answer. */
export type ApprovalRule = z.output<typeof approvalRuleSchema>;
/** The answer to a decision: what settles a request. */
export type ApprovalVerdict = Pick<ApprovalDecision, "decision" | "by" | "at">;

/** What `decide` did: settled it now, or found it settled before (or never pending). */
export type ApprovalDecideResult =
  | { settled: true; pending: PendingApproval; decision: ApprovalDecision }
  | { settled: false; decision?: ApprovalDecision };

/**
 * Pending approval requests, their decisions and the "always" rules of one agent, shared by every
 * worker of its store: a `/approve CODE` on any worker settles a request another worker's run waits
 * for. A request is settled exactly once (`decide` is a compare-and-set), and an approved one is
 * carried out exactly once (`take` is a compare-and-set too). The file driver is `.downcity/approvals.json`.
 */
export interface ApprovalStore {
  /** Records a new request; false when a pending request already has its code (pick another). */
  request(pending: PendingApproval): Promise<boolean>;
  /** Every pending request, oldest first. */
  pending(): Promise<PendingApproval[]>;
  /** The pending request `code`, if it is still pending. */
  get(code: string): Promise<PendingApproval | undefined>;
  /** Changes a pending request's sent message or waiting worker; no-op once it is settled. */
  update(code: string, change: { message?: SentApprovalMessage; worker?: string }): Promise<void>;
  /** Settles the pending request `code` (an "always" stores its prefixes as rules); only the first decision counts. */
  decide(code: string, verdict: ApprovalVerdict): Promise<ApprovalDecideResult>;
  /** The newest decision of `code`, if it was settled. */
  decision(code: string): Promise<ApprovalDecision | undefined>;
  /** The newest decisions (of one context when given), oldest first. */
  decisions(options?: { contextId?: string; limit?: number }): Promise<ApprovalDecision[]>;
  /** Marks the newest decision of `code` carried out by `by`; true for the first caller only. */
  take(code: string, by: string): Promise<boolean>;
  /** The "always" rules, oldest first. */
  rules(): Promise<ApprovalRule[]>;
  /** Removes the rule `pattern`; false when there was none. */
  revokeRule(pattern: string): Promise<boolean>;
}
