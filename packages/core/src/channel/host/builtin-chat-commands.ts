import type { AgentRuntime } from "../../agent/agent-runtime.js";
import type { UsageStore } from "../../store/usage-store.js";
import { sumUsage } from "../../store/usage-store.js";
import type { ChatCommandDefinition, ChatCommandRegistry } from "./chat-command-registry.js";
import type { RunActivity } from "./run-activity.js";

/** The built-in commands' names and descriptions (Telegram's menu lists the registry's whole list). */
export const chatCommands = {
  stop: "Stop what I am doing in this chat",
  new: "Start a fresh conversation (the old one is archived)",
  status: "Whether I am working on something here",
  usage: "Tokens this chat used today and in total",
  help: "List these commands",
} as const;

/** One of the built-in commands. */
export type ChatCommand = keyof typeof chatCommands;

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;
const count = (tokens: number) => tokens.toLocaleString("en-US");

/**
 * `/stop` cancels the chat's run (its tools and shell commands aborted), `/new` archives the history
 * behind a marker, `/status` says whether a run is going on and its step, `/usage` sums this chat's
 * tokens from the usage log, `/help` lists every registered command.
 */
export function builtinChatCommands(options: {
  runtime: Pick<AgentRuntime, "cancel" | "history">;
  activity: RunActivity;
  usageLog: Pick<UsageStore, "read">;
  registry: Pick<ChatCommandRegistry, "list">;
  now?: () => number;
}): ChatCommandDefinition[] {
  const { runtime, activity } = options;
  const now = options.now ?? Date.now;
  const define = (name: ChatCommand, handler: ChatCommandDefinition["handler"]) => ({
    name,
    description: chatCommands[name],
    handler,
  });
  return [
    define("stop", async ({ contextId }) => {
      const stopped = await runtime.cancel({ contextId });
      return stopped.length > 0 ? "Stopped." : "Nothing is running here.";
    }),
    define("new", async ({ contextId }) => {
      const archived = await runtime.history(contextId).compact({
        keepLast: 0,
        summarize: async () =>
          "The user started a new conversation with /new; earlier messages are archived.",
        reason: "new-conversation",
      });
      return archived
        ? `Started a new conversation (${archived.archivedCount} earlier messages archived).`
        : "This conversation is already empty.";
    }),
    define("status", ({ contextId }) => {
      const state = activity.get(contextId);
      if (!state) return "Idle: nothing is running here.";
      const step = state.step ? `, ${state.step}` : "";
      return `Working on it (for ${seconds(now() - state.since)}${step}). Send /stop to stop.`;
    }),
    define("usage", async ({ contextId }) => {
      const records = await options.usageLog.read({ contextId });
      const today = new Date(now()).toISOString().slice(0, 10);
      const total = sumUsage(records);
      const ofToday = sumUsage(records.filter((record) => record.at.slice(0, 10) === today));
      if (total.calls === 0) return "No model calls in this chat yet.";
      return [
        `Today (UTC): ${count(ofToday.totalTokens)} tokens in ${ofToday.calls} model calls (${count(ofToday.inputTokens)} in, ${count(ofToday.outputTokens)} out).`,
        `In total: ${count(total.totalTokens)} tokens in ${total.calls} model calls (${count(total.inputTokens)} in, ${count(total.outputTokens)} out).`,
      ].join("\n");
    }),
    define("help", () =>
      [
        "Commands:",
        ...options.registry.list().map((command) => `/${command.name} — ${command.description}`),
      ].join("\n"),
    ),
  ];
}
