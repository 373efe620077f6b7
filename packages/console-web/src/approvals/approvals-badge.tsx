import type { JSX } from "preact";
import { serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import type { ApprovalsListView } from "./approval-types.js";

/** How often the header asks for pending approvals: a waiting command should not wait on the page. */
const approvalsPollMs = 3000;

/** The number of pending approvals of an agent, beside its Approvals link; nothing when none wait. */
export function ApprovalsBadge(props: { agent: string }): JSX.Element | null {
  const approvals = usePoll(
    () => serviceCommand<ApprovalsListView>(props.agent, "approvals", "list"),
    approvalsPollMs,
    `approvals badge ${props.agent}`,
  );
  const count = approvals.value?.pending.length ?? 0;
  if (count === 0) return null;
  return (
    <span
      class="badge"
      data-testid="approvals-badge"
      title={`${count} pending approval${count === 1 ? "" : "s"}`}
    >
      {count}
    </span>
  );
}
