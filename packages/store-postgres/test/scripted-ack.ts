import type { ScriptedCall, ScriptedReply } from "@downcity/core/scripted";
import { delay } from "./worker-cluster.js";

/**
 * The scripted model of the multi-worker tests: after `delayMs`, answers "event <id>" with
 * "ack <id>", the memory plug-in's extraction call with an empty list (nothing to remember), and
 * anything else with "ok".
 */
export function scriptedAck(delayMs: number) {
  return async (call: ScriptedCall): Promise<ScriptedReply | string> => {
    await delay(delayMs);
    const system = call.messages.find((message) => message.role === "system")?.text ?? "";
    if (system.includes("memory extractor")) return JSON.stringify({ entries: [] });
    const last = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
    const eventId = /event (\S+)/.exec(last)?.[1];
    return eventId ? { text: `ack ${eventId}` } : "ok";
  };
}
