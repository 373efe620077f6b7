import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  silentLogger,
} from "@downcity/core";
import { afterEach } from "vitest";
import { telegramChannelAdapter } from "../telegram-adapter.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./fake-telegram-server.js";

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

/**
 * One test's world for host tests: `create()` gives a temporary project and a fake Telegram server,
 * `start()` runs the host over them; after each test everything is closed and removed.
 */
export function useTelegramHostWorld(prefix: string) {
  const open: {
    root?: string;
    server?: FakeTelegramServer;
    started?: { runtime: AgentRuntime; host: ChannelHost };
  } = {};
  afterEach(async () => {
    await open.started?.runtime.close();
    await open.started?.host.close();
    await open.server?.close();
    if (open.root) await rm(open.root, { recursive: true, force: true });
    delete open.started;
    delete open.server;
    delete open.root;
  });
  return {
    async create(): Promise<{ root: string; server: FakeTelegramServer }> {
      open.root = await mkdtemp(join(tmpdir(), prefix));
      open.server = await startFakeTelegramServer();
      return { root: open.root, server: open.server };
    },
    async start(options: Parameters<typeof startTelegramHost>[0]) {
      open.started = await startTelegramHost(options);
      return open.started;
    },
  };
}
