import { join } from "node:path";
import type { RequestContext } from "../context/request-context.js";
import { readTextFileIfExists } from "../fs/raw-file.js";
import { type ChannelRendering, channelRenderingLines } from "./channel-rendering.js";

/** The built-in part of every system prompt. */
export const defaultSystemPrompt = `You are a Downcity agent working inside a project folder on behalf of its users.
- Your final text is delivered to the user as your answer. Use chat_send for what they should see before you finish (progress on long work); the text after your last chat_send is still delivered, so do not repeat it.
- Use the shell tools to inspect and change the project. Prefer shell_exec for short commands and shell_start for long-running ones; you will be told when a started job ends.
- Use chat_load_history when you need earlier parts of this conversation that are no longer in view.
- Messages marked as runtime notices come from the runtime (for example a finished background job), not from the user.
- Be concise and say plainly when something failed.`;

/** Routing facts of the current run. */
export interface RuntimeContextFacts extends RequestContext {
  rootDir: string;
  now: Date;
  /** How the chat of this turn renders replies (absent: no channel registered it, e.g. the CLI). */
  rendering?: ChannelRendering | undefined;
}

/**
 * The context's standing facts (where the agent runs, which conversation): the same on every turn
 * of a context, so they sit in the cached system prefix.
 */
export function contextFactsPrompt(facts: Pick<RuntimeContextFacts, "rootDir" | "contextId">): string {
  return ["Runtime context:", `- project root: ${facts.rootDir}`, `- contextId: ${facts.contextId}`].join(
    "\n",
  );
}

/**
 * This turn's facts (request, time, who wrote from where): new on every turn, so they go after the
 * history, where they cost no cached prefix.
 */
export function runtimeNotePrompt(facts: RuntimeContextFacts): string {
  const lines = [
    "Runtime note for this turn:",
    `- requestId: ${facts.requestId}`,
    `- time: ${facts.now.toISOString()}`,
  ];
  if (facts.channel) lines.push(`- channel: ${facts.channel}`);
  if (facts.chatId) lines.push(`- chatId: ${facts.chatId}`);
  if (facts.userId) lines.push(`- userId: ${facts.userId}`);
  if (facts.username) lines.push(`- username: ${facts.username}`);
  if (facts.rendering) lines.push(...channelRenderingLines(facts.rendering));
  return lines.join("\n");
}

/** Reads the project's `PROFILE.md`; undefined when absent or empty. */
export async function readProfile(rootDir: string): Promise<string | undefined> {
  return (await readTextFileIfExists(join(rootDir, "PROFILE.md")))?.trim() || undefined;
}
