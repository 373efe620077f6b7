import type { ApprovalRecord } from "@downcity/core";
import type { PendingApproval } from "./approval-store.js";

/** The suffix of a request's notice key. */
export const requestSuffix = "request";
/** The outbox key of a request's message (a notice key: `approval:<code>:<suffix>`). */
export const requestKey = (code: string) => `approval:${code}:${requestSuffix}`;
/** The code of a request's message from its outbox key (or that of its last chunk, `<key>.<n>`). */
export const requestCodeOf = (key: string) => /^approval:([A-Z0-9]+):request(?:\.\d+)?$/.exec(key)?.[1];

/** The journal record of a request (`requested`) or its decision: what waited, who answered. */
export function approvalRecordOf(
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
