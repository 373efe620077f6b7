import type { ScriptedCall } from "@downcity/core/scripted";
import { afterAll } from "vitest";

/** A run's model step, as opposed to the memory extractor's call (tests answer that with no entries). */
export const isStepCall = (call: ScriptedCall): boolean =>
  !call.messages.some((message) => message.role === "system" && message.text.includes("memory extractor"));

/** A list of clean-ups the enclosing `describe` runs after its tests, newest first, each even if one fails. */
export function cleanupsAfterAll(): Array<() => Promise<unknown>> {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });
  return cleanups;
}
