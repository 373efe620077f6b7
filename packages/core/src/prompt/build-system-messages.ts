import type { ModelMessage } from "ai";
import type { RequestContext } from "../context/request-context.js";
import type { Logger } from "../logger/logger.js";
import type { ChannelRendering } from "./channel-rendering.js";
import { estimateTokens } from "./model-messages.js";
import { runtimeNoteOptions } from "./prompt-cache-middleware.js";
import type { PromptProvider } from "./prompt-provider.js";
import { runPromptProviders } from "./run-prompt-providers.js";
import { contextFactsPrompt, defaultSystemPrompt, readProfile, runtimeNotePrompt } from "./system-prompt.js";

/** The system part of a run's prompt, the tools the providers allow, and its estimated size. */
export interface SystemMessages {
  /** The stable prefix, most stable first: what a provider's prompt cache can serve turn after turn. */
  messages: ModelMessage[];
  /** This turn's facts (requestId, time, sender, channel), sent after the history. */
  runtimeNote: ModelMessage;
  /** Tool names the prompt providers narrowed the run to (skills' allowed-tools), or undefined for all. */
  activeTools?: string[];
  tokens: number;
}

/**
 * Builds a run's system messages from the most to the least stable: the built-in prompt, PROFILE.md,
 * the context's standing facts, then the providers' messages (skills, memory) in their order. What
 * changes every turn is the separate runtime note, so two turns of a context share this whole prefix.
 */
export async function buildSystemMessages(options: {
  rootDir: string;
  requestContext: RequestContext;
  promptProviders: readonly PromptProvider[];
  toolNames: string[];
  logger: Logger;
  now: Date;
  /** How the chat of this turn renders replies; told in the runtime note, never in the cached prefix. */
  rendering?: ChannelRendering | undefined;
  /** Reads PROFILE.md (a runtime's reader keeps it in memory while unchanged) [read from `rootDir`]. */
  readProfile?: () => Promise<string | undefined>;
}): Promise<SystemMessages> {
  const { rootDir, requestContext, toolNames } = options;
  const provided = await runPromptProviders(
    [...options.promptProviders],
    { ...requestContext, rootDir, toolNames },
    options.logger,
  );
  const profile = await (options.readProfile?.() ?? readProfile(rootDir));
  const messages: ModelMessage[] = [
    { role: "system", content: defaultSystemPrompt },
    ...(profile ? [{ role: "system" as const, content: profile }] : []),
    { role: "system", content: contextFactsPrompt({ rootDir, contextId: requestContext.contextId }) },
    ...provided.messages,
  ];
  const runtimeNote: ModelMessage = {
    role: "system",
    content: runtimeNotePrompt({
      ...requestContext,
      rootDir,
      now: options.now,
      rendering: options.rendering,
    }),
    providerOptions: runtimeNoteOptions,
  };
  const activeTools = provided.activeTools
    ? toolNames.filter((name) => provided.activeTools?.includes(name))
    : undefined;
  return {
    messages,
    runtimeNote,
    ...(activeTools ? { activeTools } : {}),
    tokens: estimateTokens([...messages, runtimeNote]),
  };
}
