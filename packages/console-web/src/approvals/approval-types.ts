/** A shell command waiting for a human, as the `approvals` service lists it (secrets masked). */
export interface PendingApprovalView {
  code: string;
  command: string;
  cwd: string;
  tty: boolean;
  contextId: string;
  requestId?: string;
  reason?: string;
  /** The prefix patterns "always" would store (`git push *`). */
  prefixes: string[];
  createdAt: string;
  expiresAt: string;
}

/** One answer (or timeout). */
export interface ApprovalDecisionView {
  code: string;
  command: string;
  contextId: string;
  decision: "once" | "always" | "deny" | "timeout";
  by: string;
  at: string;
}

/** `approvals.list`: the mode, the pending requests and the last decisions. */
export interface ApprovalsListView {
  mode: string;
  pending: PendingApprovalView[];
  recent: ApprovalDecisionView[];
}
