/** One registered project as the agents page shows it. */
export interface AgentView {
  id: string;
  name: string;
  projectRoot: string;
  status: "running" | "stopped" | "stale";
  pid?: number;
  startedAt?: string;
  uptimeMs?: number;
  version?: string;
  model?: string;
}

/** A conversation of an agent with its last activity. */
export interface ContextView {
  contextId: string;
  lastActivityAt: string | null;
}

/** One part of a history message (text, a tool call with its result, a step boundary). */
export interface MessagePart {
  type: string;
  text?: string;
  toolName?: string;
  toolCallId?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

/** One persisted message of a context. */
export interface HistoryMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: MessagePart[];
  metadata?: { createdAt?: string; requestId?: string; [key: string]: unknown };
}
