import { createChannelHost } from "@downcity/core";
import { loadChannels } from "../channels/load-channels.js";
import { daemonComponent } from "../host/daemon-parts.js";

/** The channel host: durable inbox and outbox of every configured channel; it closes after the runs, so their replies are recorded. */
export const channelsComponent = daemonComponent({
  name: "channels",
  dependsOn: ["context", "runtime", "store"],
  async setup({ context, runtime: { runtime }, store }) {
    const { rootDir, config, logger } = context;
    const channelHost = await createChannelHost({
      rootDir,
      runtime,
      logger,
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
    return { value: channelHost, close: () => channelHost.close() };
  },
});
