import type { ToolSet } from "ai";
import type { RequestContext } from "../context/request-context.js";
import type { ContextHistory } from "../store/history-store.js";

/** A context's history as the runtime hands it out: the store contract, plus its folder when it lives on disk. */
export type RuntimeHistory = ContextHistory & { readonly dir?: string };

/** What tool factories learn about the run they build tools for. */
export interface RunContext extends RequestContext {
  rootDir: string;
  history: RuntimeHistory;
  abortSignal: AbortSignal;
  origin: "user" | "internal";
}

/** Tools for runs: a fixed set, or a factory called once per run. */
export type ToolSource = ToolSet | ((run: RunContext) => ToolSet | Promise<ToolSet>);
