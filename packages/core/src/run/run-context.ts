import type { ToolSet } from "ai";
import type { RuntimeHistory } from "../agent/runtime-histories.js";
import type { RequestContext } from "../context/request-context.js";

/** What tool factories learn about the run they build tools for. */
export interface RunContext extends RequestContext {
  rootDir: string;
  history: RuntimeHistory;
  abortSignal: AbortSignal;
  origin: "user" | "internal";
}

/** Tools for runs: a fixed set, or a factory called once per run. */
export type ToolSource = ToolSet | ((run: RunContext) => ToolSet | Promise<ToolSet>);
