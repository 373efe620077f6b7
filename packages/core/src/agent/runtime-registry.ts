import type { ChannelSender } from "../chat/channel-sender.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { ChannelRendering } from "../prompt/channel-rendering.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { ToolApprover } from "../run/approval-gated-tools.js";
import type { RecipientDirectory } from "../run/reply-routing.js";
import type { ToolSource } from "../run/run-context.js";
import type { RuntimeEvent, RuntimeEventListener } from "../run/runtime-event.js";

/** How hosts and plug-ins extend a runtime; each call returns its undo. */
export interface RuntimeRegistrations {
  /** `rendering` tells the model of this channel's runs how replies show there (runtime note). */
  registerSender(channel: string, sender: ChannelSender, rendering?: ChannelRendering): () => void;
  /** Sets how `chat_send`'s `to` ("@username", a contact id) finds its recipient (the channel host's contact book). */
  registerDirectory(directory: RecipientDirectory): () => void;
  addPromptProvider(provider: PromptProvider): () => void;
  addTools(source: ToolSource): () => void;
  /** Decides tool calls whose tool declares `needsApproval` (the host's approval flow); the last one registered wins. */
  registerToolApprover(approver: ToolApprover): () => void;
  on(listener: RuntimeEventListener): () => void;
  /** Emits a `tool-progress` event for a run (tools that wait report through it). */
  reportProgress(progress: Omit<Extract<RuntimeEvent, { type: "tool-progress" }>, "type">): void;
}

/** What is registered with a runtime, as its runs read it. */
export interface RuntimeRegistry {
  readonly registrations: RuntimeRegistrations;
  /** Live lists: what is added while a run goes joins the next run. */
  readonly toolSources: readonly ToolSource[];
  readonly promptProviders: readonly PromptProvider[];
  readonly senders: ReadonlyMap<string, ChannelSender>;
  readonly renderings: ReadonlyMap<string, ChannelRendering>;
  directory(): RecipientDirectory | undefined;
  toolApprover(): ToolApprover | undefined;
  /** Sends an event to every listener; a listener that throws is logged and skipped. */
  emit(event: RuntimeEvent): void;
}

const removeFrom = <T>(list: T[], item: T) => {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
};

/** Creates the registry of a runtime, starting with the tools and prompt providers of its options. */
export function createRuntimeRegistry(options: {
  logger: Logger;
  tools?: ToolSource | ToolSource[] | undefined;
  promptProviders?: PromptProvider[] | undefined;
}): RuntimeRegistry {
  const { logger } = options;
  const promptProviders = [...(options.promptProviders ?? [])];
  const toolSources: ToolSource[] = Array.isArray(options.tools)
    ? [...options.tools]
    : options.tools
      ? [options.tools]
      : [];
  const senders = new Map<string, ChannelSender>();
  const renderings = new Map<string, ChannelRendering>();
  let directory: RecipientDirectory | undefined;
  let toolApprover: ToolApprover | undefined;
  const listeners = new Set<RuntimeEventListener>();

  const emit = (event: RuntimeEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn({ event: event.type, ...errorFields(error) }, "runtime event listener threw");
      }
    }
  };

  const registrations: RuntimeRegistrations = {
    registerDirectory(resolve) {
      directory = resolve;
      return () => {
        if (directory === resolve) directory = undefined;
      };
    },
    registerSender(channel, sender, rendering) {
      senders.set(channel, sender);
      if (rendering) renderings.set(channel, rendering);
      else renderings.delete(channel);
      return () => {
        if (senders.get(channel) !== sender) return;
        senders.delete(channel);
        renderings.delete(channel);
      };
    },
    addPromptProvider(provider) {
      promptProviders.push(provider);
      return () => removeFrom(promptProviders, provider);
    },
    registerToolApprover(approver) {
      toolApprover = approver;
      return () => {
        if (toolApprover === approver) toolApprover = undefined;
      };
    },
    addTools(source) {
      toolSources.push(source);
      return () => removeFrom(toolSources, source);
    },
    reportProgress: (progress) => emit({ type: "tool-progress", ...progress }),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  return {
    registrations,
    toolSources,
    promptProviders,
    senders,
    renderings,
    directory: () => directory,
    toolApprover: () => toolApprover,
    emit,
  };
}
