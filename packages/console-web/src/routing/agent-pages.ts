import type { Route } from "./use-hash-route.js";

/** The pages of one agent, in navigation order, with their link labels. */
export const agentPages: ReadonlyArray<{ page: Route["page"]; label: string }> = [
  { page: "chats", label: "Chats" },
  { page: "runs", label: "Runs" },
  { page: "approvals", label: "Approvals" },
  { page: "shell", label: "Shell" },
  { page: "tasks", label: "Tasks" },
  { page: "memory", label: "Memory" },
  { page: "extensions", label: "Skills & MCP" },
  { page: "channels", label: "Channels" },
  { page: "logs", label: "Logs" },
];
