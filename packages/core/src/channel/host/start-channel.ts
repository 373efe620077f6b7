import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { DowncityError } from "../../errors/downcity-error.js";
import { errorFromZod } from "../../errors/zod-issue-message.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { DowncityPaths } from "../../paths/downcity-paths.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileChannelState } from "../../store/file/file-adapter-state.js";
import { openPairingStore } from "../../store/file/file-pairing-store.js";
import type { ChannelContext, ChannelInbox, ChannelState } from "../adapter/channel-adapter.js";
import { channelAccessSchema } from "./channel-access.js";
import { channelRenderingOf } from "./channel-rendering-of.js";
import { parseChannelSettings } from "./channel-settings.js";
import type { ChatCommandSummary } from "./chat-command-registry.js";
import { pollWhenElected } from "./poller-election.js";
import type { ReplyRecorder } from "./reply-recorder.js";
import type { RunningChannel } from "./running-channel.js";
import { openSharedPairing } from "./shared-pairing.js";

/** What starting a channel needs from its host. */
export interface StartChannelDeps {
  paths: DowncityPaths;
  runtime: Pick<AgentRuntime, "registerSender">;
  logger: Logger;
  replies: ReplyRecorder;
  /** The inbox the host gives this channel's adapter. */
  inbox(running: RunningChannel): ChannelInbox;
  /** Wraps the inbox each adapter sees (the conformance suite injects faults with it). */
  interceptInbox?: (channel: string, inbox: ChannelInbox) => ChannelInbox;
  /** The store; with a poller lock, a polling adapter runs on one worker at a time. */
  store: DowncityStore;
  /** The chat commands the host answers, for adapters with a command menu. */
  commands?: readonly ChatCommandSummary[];
  /** Undoes what starting registered (the runtime's sender), at close. */
  onClose(undo: () => void): void;
}

/** Validates a channel's access and options against its adapter's schema; throws CONFIG_INVALID naming the field. */
function parseChannelConfig(running: RunningChannel) {
  const { instance } = running;
  if (instance.loadError) throw instance.loadError;
  if (!instance.definition)
    throw new DowncityError("PLUGIN_FAILED", `channel "${instance.name}" has no adapter`);
  const access = channelAccessSchema.safeParse(instance.access ?? {});
  if (!access.success)
    throw errorFromZod(access.error, {
      what: "downcity.json",
      code: "CONFIG_INVALID",
      prefix: `channels.${instance.name}.access`,
    });
  const options = instance.definition.options.safeParse(instance.options ?? {});
  if (!options.success)
    throw errorFromZod(options.error, {
      what: "downcity.json",
      code: "CONFIG_INVALID",
      prefix: `channels.${instance.name}`,
    });
  const settings = parseChannelSettings(instance);
  return { definition: instance.definition, access: access.data, options: options.data, settings };
}

/**
 * Starts one channel: config checked, pairing state opened, adapter created and started (or, for
 * a polling adapter on a store several workers share, started once this worker is elected). A
 * failure marks only this channel failed; the others go on.
 */
export async function startChannel(running: RunningChannel, deps: StartChannelDeps): Promise<void> {
  const { instance } = running;
  const { logger } = deps;
  try {
    const config = parseChannelConfig(running);
    running.accessConfig = config.access;
    running.settings = config.settings;
    const dir = deps.paths.channelDir(instance.name);
    const stateDir = join(dir, "state");
    await mkdir(stateDir, { recursive: true });
    // A shared store holds access for every worker; alone, the channel's access.json does.
    running.pairing = deps.store.access
      ? await openSharedPairing(deps.store.access.channel(instance.name))
      : await openPairingStore(join(dir, "access.json"));
    const adapter = config.definition.create(config.options, { rootDir: deps.paths.rootDir, logger });
    running.adapter = adapter;
    running.services = config.definition.services?.(config.options, { channel: instance.name, logger }) ?? [];
    deps.onClose(
      deps.runtime.registerSender(
        instance.name,
        deps.replies.sender(instance.name),
        channelRenderingOf(adapter.capabilities),
      ),
    );
    const inbox = deps.inbox(running);
    const context: ChannelContext = {
      channel: instance.name,
      inbox: deps.interceptInbox ? deps.interceptInbox(instance.name, inbox) : inbox,
      logger,
      signal: running.abort.signal,
      stateDir,
      // A store without adapter state (an older store package) leaves it in the state folder.
      state: deps.store.adapterState?.channel(instance.name) ?? openFileChannelState(stateDir),
      commands: deps.commands ?? [],
      setState: (state: ChannelState | "standby", error?: string) => {
        running.status.state = state;
        if (error) running.status.error = error;
        else delete running.status.error;
      },
    };
    const pollerLock = deps.store.pollerLock?.bind(deps.store);
    if (pollerLock && adapter.capabilities.polls) {
      // Several workers: one polls, the others stand by (and still send this channel's replies).
      running.status.state = "standby";
      running.pollerLock = pollWhenElected({
        channel: instance.name,
        pollerLock,
        signal: running.abort.signal,
        logger,
        start: () => adapter.start(context),
        stop: () => adapter.stop(),
        setState: context.setState,
      });
    } else {
      running.status.state = "connected";
      await adapter.start(context);
    }
  } catch (error) {
    running.status.state = "failed";
    running.status.error = (error as Error)?.message ?? String(error);
    logger.error(
      { channel: instance.name, ...errorFields(error) },
      "channel failed to start; the others go on",
    );
  }
}

/** Stops a channel's adapter, then gives back its poller lock (only then, so two workers never poll at once). */
export async function stopChannel(running: RunningChannel, logger: Logger): Promise<void> {
  running.abort.abort();
  try {
    await running.adapter?.stop();
  } catch (error) {
    logger.warn({ channel: running.instance.name, ...errorFields(error) }, "channel stop failed");
  }
  await (await running.pollerLock)?.release().catch(() => {});
  running.status.state = "stopped";
}
