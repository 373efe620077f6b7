import type { JSX } from "preact";
import { RunDetail } from "../runs/run-detail.js";
import { RunList } from "../runs/run-list.js";

/** The Runs page: the list with filters, or one run's timeline when the route names it. */
export function RunsPage(props: { agent: string; requestId: string | undefined }): JSX.Element {
  return props.requestId ? (
    <RunDetail agent={props.agent} requestId={props.requestId} />
  ) : (
    <RunList agent={props.agent} />
  );
}
