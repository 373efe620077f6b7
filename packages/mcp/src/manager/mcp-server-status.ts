/** Where one server stands: `closed` before `connect()` and after `close()`, `disabled` when `enabled: false`. */
export type McpServerState = "connecting" | "ready" | "error" | "closed" | "disabled";

/** What `status()` and the `list` action report about one configured server. */
export interface McpServerStatus {
  name: string;
  type: "stdio" | "sse" | "http";
  status: McpServerState;
  /** Why the server is in `error` (kept while a reconnect is pending). */
  error?: string;
  toolCount: number;
  /** The stdio child's pid while connected. */
  pid?: number;
  connectedAt?: string;
  /** Consecutive automatic reconnect attempts (reset by `reconnect()` and by a connection that stayed up). */
  retries: number;
  nextRetryAt?: string;
}
