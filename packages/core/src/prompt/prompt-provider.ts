import type { ModelMessage } from "ai";
import type { RequestContext } from "../context/request-context.js";

/** What a prompt provider learns about the run it contributes to. */
export interface PromptContext extends RequestContext {
  rootDir: string;
  /** Names of every tool the run offers before providers narrow them. */
  toolNames: string[];
}

/** A provider's contribution: system messages to add and, optionally, the tools it allows. */
export interface PromptContribution {
  messages?: Array<ModelMessage | string>;
  activeTools?: string[];
}

/** Contributes system messages (and possibly narrows tools) to every run; ordered by `order`. */
export interface PromptProvider {
  id: string;
  order: number;
  provide(context: PromptContext): Promise<PromptContribution | undefined> | PromptContribution | undefined;
}

/** Declares a prompt provider. */
export function definePromptProvider(provider: PromptProvider): PromptProvider {
  return provider;
}
