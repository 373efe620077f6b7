import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import type { ApprovalsListView, PendingApprovalView } from "../approvals/approval-types.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

/** Shell commands waiting for a human: allow once, always allow their prefix, or deny; the last decisions. */
export function ApprovalsPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const approvals = usePoll(
    () => serviceCommand<ApprovalsListView>(agent, "approvals", "list"),
    2000,
    `approvals ${agent}`,
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const answer = async (pending: PendingApprovalView, action: "approve" | "deny", always = false) => {
    setProblem(undefined);
    try {
      const result = await serviceCommand<{ message: string }>(agent, "approvals", action, {
        code: pending.code,
        ...(action === "approve" ? { always } : {}),
      });
      setDone(result.message);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await approvals.refresh();
  };
  const value = approvals.value;
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {problem || approvals.error ? <p role="alert">{problem ?? approvals.error}</p> : null}
      {done ? <p role="status">{done}</p> : null}
      {value ? (
        <p>
          Mode <code>{value.mode}</code>
          {value.mode === "off" ? " (commands run without asking; set approvals.mode in downcity.json)" : ""}
        </p>
      ) : null}
      {value && value.pending.length === 0 ? (
        <p data-testid="approvals-empty">No command is waiting.</p>
      ) : null}
      {(value?.pending ?? []).map((pending) => (
        <article key={pending.code} class="approval" data-approval={pending.code}>
          <header>
            <strong>{pending.code}</strong> · <code>{pending.contextId}</code> · expires{" "}
            {formatTime(pending.expiresAt)}
          </header>
          <pre>{pending.command}</pre>
          <p>
            <small>
              in <code>{pending.cwd}</code>
              {pending.reason ? ` · ${pending.reason}` : ""}
              {pending.requestId ? (
                <>
                  {" · "}
                  <a href={routeHref({ page: "runs", agent, detail: pending.requestId })}>its run</a>
                </>
              ) : null}
            </small>
          </p>
          <div class="actions">
            <button type="button" onClick={() => void answer(pending, "approve")}>
              Allow once
            </button>
            {pending.prefixes.length > 0 ? (
              <button type="button" class="secondary" onClick={() => void answer(pending, "approve", true)}>
                Always allow {pending.prefixes.map((prefix) => `"${prefix}"`).join(", ")}
              </button>
            ) : null}
            <button type="button" class="outline contrast" onClick={() => void answer(pending, "deny")}>
              Deny
            </button>
          </div>
        </article>
      ))}
      <h2>Last decisions</h2>
      <table aria-label="Last decisions">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Code</th>
            <th scope="col">Command</th>
            <th scope="col">Decision</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {[...(value?.recent ?? [])].reverse().map((decision) => (
            <tr key={`${decision.code} ${decision.at}`}>
              <td>{formatTime(decision.at)}</td>
              <td>{decision.code}</td>
              <td>
                <code>{decision.command}</code>
              </td>
              <td>{decision.decision}</td>
              <td>{decision.by}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
