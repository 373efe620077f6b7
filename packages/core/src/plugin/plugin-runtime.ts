import type { AgentRuntime } from "../agent/agent-runtime.js";

/**
 * The part of the agent runtime a plug-in may use: start a run, read a context's history and watch
 * run events. Tools, prompt providers and history folders are what `setup` returns, and closing
 * the runtime is the host's job, so a plug-in never holds the whole `AgentRuntime`.
 */
export type PluginRuntime = Pick<AgentRuntime, "send" | "history" | "on">;

/** What the plug-in host itself needs of the runtime: the plug-ins' view plus the hooks it wires their setup into. */
export type PluginHostRuntime = PluginRuntime & Pick<AgentRuntime, "addTools" | "addPromptProvider">;

/** A `PluginRuntime` over `runtime` that exposes nothing else of it, even to a plug-in that casts. */
export function pluginRuntimeOf(runtime: PluginRuntime): PluginRuntime {
  return {
    send: (message) => runtime.send(message),
    history: (contextId) => runtime.history(contextId),
    on: (listener) => runtime.on(listener),
  };
}
