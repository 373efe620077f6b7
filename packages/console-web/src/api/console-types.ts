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
  /** File parts: the media type, the project-relative `.downcity/media/...` path and the name. */
  mediaType?: string;
  url?: string;
  filename?: string;
  providerMetadata?: { downcity?: { kind?: string; size?: number } };
}

/** One persisted message of a context. */
export interface HistoryMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: MessagePart[];
  metadata?: {
    createdAt?: string;
    requestId?: string;
    /** `console`: typed by the operator in the web console into this chat. */
    sentFrom?: string;
    [key: string]: unknown;
  };
}
