import type { ModelMessage } from "ai";
import type { RequestContext } from "../context/request-context.js";
import type { Logger } from "../logger/logger.js";
import { estimateTokens } from "./model-messages.js";
import type { PromptProvider } from "./prompt-provider.js";
import { runPromptProviders } from "./run-prompt-providers.js";
import { defaultSystemPrompt, readProfile, runtimeContextPrompt } from "./system-prompt.js";

/** The system part of a run's prompt, the tools the providers allow, and its estimated size. */
export interface SystemMessages {
  messages: ModelMessage[];
  /** Tool names the prompt providers narrowed the run to (skills' allowed-tools), or undefined for all. */
  activeTools?: string[];
  tokens: number;
}

/** Builds a run's system messages: runtime facts, PROFILE.md, the default prompt, then the providers' messages. */
export async function buildSystemMessages(options: {
  rootDir: string;
  requestContext: RequestContext;
  promptProviders: readonly PromptProvider[];
  toolNames: string[];
  logger: Logger;
  now: Date;
}): Promise<SystemMessages> {
  const { rootDir, requestContext, toolNames } = options;
  const provided = await runPromptProviders(
    [...options.promptProviders],
    { ...requestContext, rootDir, toolNames },
    options.logger,
  );
  const profile = await readProfile(rootDir);
  const messages: ModelMessage[] = [
    { role: "system", content: runtimeContextPrompt({ ...requestContext, rootDir, now: options.now }) },
    ...(profile ? [{ role: "system" as const, content: profile }] : []),
    { role: "system", content: defaultSystemPrompt },
    ...provided.messages,
  ];
  const activeTools = provided.activeTools
    ? toolNames.filter((name) => provided.activeTools?.includes(name))
    : undefined;
  return { messages, ...(activeTools ? { activeTools } : {}), tokens: estimateTokens(messages) };
}
