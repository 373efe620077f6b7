import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  silentLogger,
} from "@downcity/core";
import { telegramChannelAdapter } from "../telegram-adapter.js";
import type { FakeTelegramServer } from "./fake-telegram-server.js";

type RuntimeOptions = Parameters<typeof createAgentRuntime>[0];

/** A runtime and a channel host running one Telegram channel `tg` against the fake (DMs open). */
export async function startTelegramHost(options: {
  rootDir: string;
  server: FakeTelegramServer;
  model: RuntimeOptions["model"];
  tools: RuntimeOptions["tools"];
}): Promise<{ runtime: AgentRuntime; host: ChannelHost }> {
  const runtime = createAgentRuntime({
    rootDir: options.rootDir,
    logger: silentLogger,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.model ? { model: options.model } : {}),
  });
  const host = await createChannelHost({
    rootDir: options.rootDir,
    runtime,
    logger: silentLogger,
    channels: [
      {
        name: "tg",
        source: "@downcity/adapters-telegram",
        definition: telegramChannelAdapter,
        options: { token: options.server.token, apiRoot: options.server.url, pollTimeoutSeconds: 1 },
        access: { dm: "open" },
      },
    ],
  });
  await host.start();
  return { runtime, host };
}
