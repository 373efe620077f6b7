import type { ModelMessage } from "ai";
import { errorFields, type Logger } from "../logger/logger.js";
import type { PromptContext, PromptProvider } from "./prompt-provider.js";

/** The merged output of every provider of a run. */
export interface PromptProvidersResult {
  messages: ModelMessage[];
  /** Intersection of every provider's `activeTools`; undefined when no provider narrowed the tools. */
  activeTools?: string[];
}

/** Runs providers in `order`; concatenates messages, intersects activeTools, logs and skips a provider that throws. */
export async function runPromptProviders(
  providers: readonly PromptProvider[],
  context: PromptContext,
  logger: Logger,
): Promise<PromptProvidersResult> {
  const sorted = [...providers].sort((left, right) => left.order - right.order);
  const messages: ModelMessage[] = [];
  let activeTools: Set<string> | undefined;
  for (const provider of sorted) {
    try {
      const contribution = await provider.provide(context);
      if (!contribution) continue;
      for (const message of contribution.messages ?? []) {
        messages.push(typeof message === "string" ? { role: "system", content: message } : message);
      }
      if (contribution.activeTools) {
        const allowed = new Set(contribution.activeTools);
        activeTools = activeTools ? new Set([...activeTools].filter((name) => allowed.has(name))) : allowed;
      }
    } catch (error) {
      logger.warn({ providerId: provider.id, ...errorFields(error) }, "prompt provider failed; skipped");
    }
  }
  return activeTools ? { messages, activeTools: [...activeTools] } : { messages };
}
