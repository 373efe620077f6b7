import { type ApprovalStore, openFileApprovalStore } from "@downcity/core";
import { downcityPaths } from "@downcity/core/primitives";

export type { ApprovalDecision, ApprovalRule, ApprovalStore, PendingApproval } from "@downcity/core";

/**
 * The approval store the daemon uses: the shared store's when it has one (every worker sees the
 * same requests, decisions and rules), else `.downcity/approvals.json` (one worker).
 */
export function openApprovalStore(rootDir: string, shared?: { approvals?: ApprovalStore }): ApprovalStore {
  return shared?.approvals ?? openFileApprovalStore(downcityPaths(rootDir).approvalsFile);
}
