import { createChannelHost } from "@downcity/core";
import { loadChannels } from "../channels/load-channels.js";
import { daemonComponent } from "../host/daemon-parts.js";
import { journalSecrets } from "../runtime/journal-secrets.js";

/** The channel host: durable inbox and outbox of every configured channel; it closes after the runs, so their replies are recorded. */
export const channelsComponent = daemonComponent({
  name: "channels",
  dependsOn: ["context", "runtime", "store", "approvals", "telemetry"],
  async setup({ context, runtime, store, approvals, telemetry }) {
    const { rootDir, config, logger } = context;
    const channelHost = await createChannelHost({
      rootDir,
      // The approvals' view of the runtime: their notices reach chats through the host's senders.
      runtime: approvals.runtimeForChannels,
      commands: approvals.chatCommands,
      actions: approvals.chatActions,
      // Masked wherever a progress message or /status shows a command.
      secrets: journalSecrets(config, context.configEnv),
      logger,
      workerId: runtime.workerId,
      ...(telemetry ? { onDelivery: telemetry.onDelivery } : {}),
      channels: await loadChannels(rootDir, config.channels),
      ...(config.media ? { media: config.media } : {}),
      ...(store
        ? {
            store,
            leaseMs: config.store?.leaseMs,
            ...(config.lanes ? { concurrency: config.lanes.maxConcurrency } : {}),
          }
        : {}),
    });
    approvals.useChannelHost(channelHost);
    return { value: channelHost, close: () => channelHost.close() };
  },
});
