import type { JSX } from "preact";
import type { Route } from "../routing/use-hash-route.js";
import { ApprovalsPage } from "./approvals-page.js";
import { ChannelsPage } from "./channels-page.js";
import { ChatsPage } from "./chats-page.js";
import { ExtensionsPage } from "./extensions-page.js";
import { LogsPage } from "./logs-page.js";
import { MemoryPage } from "./memory-page.js";
import { RunsPage } from "./runs-page.js";
import { ShellPage } from "./shell-page.js";
import { TasksPage } from "./tasks-page.js";

/** One agent's page the route names (chats, runs, approvals, shell, tasks, memory, extensions, channels or logs). */
export function AgentPage(props: { route: Route; agent: string }): JSX.Element {
  const { route, agent } = props;
  switch (route.page) {
    case "chats":
      return <ChatsPage agent={agent} contextId={route.detail} focus={route.focus} />;
    case "runs":
      return <RunsPage agent={agent} requestId={route.detail} />;
    case "approvals":
      return <ApprovalsPage agent={agent} />;
    case "shell":
      return <ShellPage agent={agent} shellId={route.detail} />;
    case "tasks":
      return <TasksPage agent={agent} />;
    case "memory":
      return <MemoryPage agent={agent} />;
    case "extensions":
      return <ExtensionsPage agent={agent} />;
    case "channels":
      return <ChannelsPage agent={agent} />;
    default:
      return <LogsPage agent={agent} />;
  }
}
