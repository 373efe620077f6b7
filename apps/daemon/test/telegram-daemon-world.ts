import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeTelegramServer, startFakeTelegramServer } from "@downcity/adapters-telegram/test";
import { downcityPaths } from "@downcity/core";
import {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { moduleResolve } from "import-meta-resolve";
import { afterAll, beforeAll, inject } from "vitest";
import { createDaemonClient, initProject, readToken, startDaemonDetached, stopDaemon } from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

/** The forum supergroup the daemon's `tg` channel allows (a mention is required there). */
export const forumGroupId = -1001234567890;

/** What the tests of a `describe` using `useTelegramDaemon` reach once its `beforeAll` ran. */
export interface TelegramDaemon {
  readonly rootDir: string;
  readonly fake: FakeTelegramServer;
  readonly model: OpenAICompatibleServer;
  /** A client of the daemon, with the user's token. */
  readonly client: ReturnType<typeof createDaemonClient>;
  /** The text of every log the daemon wrote. */
  logs(): Promise<string>;
}

/**
 * Registers hooks around the enclosing `describe`: a project whose `tg` channel long-polls a fake
 * Bot API (DMs open, the forum group allowed), the Telegram adapter installed in it as a package
 * bundled from its sources, a scripted model answering with `respond` (and `transcribe`), `llm`
 * fields added, and a real detached daemon; afterwards the daemon stopped and everything closed.
 */
export function useTelegramDaemon(options: {
  respond: NonNullable<OpenAICompatibleServerOptions["respond"]>;
  transcribe?: OpenAICompatibleServerOptions["transcribe"];
  llm?: Record<string, unknown>;
  /** Who may talk in direct chats ["open"]. */
  dm?: "open" | "pairing";
}): TelegramDaemon {
  const cleanups: Array<() => Promise<unknown>> = [];
  let state:
    | {
        rootDir: string;
        fake: FakeTelegramServer;
        model: OpenAICompatibleServer;
        client: ReturnType<typeof createDaemonClient>;
      }
    | undefined;
  const ready = () => {
    if (!state) throw new Error("the telegram daemon is reached before its beforeAll ran");
    return state;
  };

  beforeAll(async () => {
    const world = await createTempWorld("dc-telegram-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    const fake = await startFakeTelegramServer();
    cleanups.push(() => fake.close());
    const model = await startOpenAICompatibleServer({
      respond: options.respond,
      ...(options.transcribe ? { transcribe: options.transcribe } : {}),
    });
    cleanups.push(() => model.close());
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url, ...options.llm },
    });
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    config.channels = {
      tg: {
        adapter: "@downcity/adapters-telegram",
        token: "${TELEGRAM_BOT_TOKEN}",
        apiRoot: fake.url,
        pollTimeoutSeconds: 1,
        access: { dm: options.dm ?? "open", groups: "allowlist", allowGroups: [String(forumGroupId)] },
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await appendFile(join(rootDir, ".env"), `\nTELEGRAM_BOT_TOKEN=${fake.token}\n`);
    await installTelegramAdapter(rootDir);
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 2000 }));
    const daemon = await startDaemonDetached({
      rootDir,
      env: world.env,
      entry: inject("daemonEntry"),
      timeoutMs: 30_000,
    });
    const token = (await readToken(world.env)) as string;
    const client = createDaemonClient({ host: daemon.host, port: daemon.port, token });
    await until(() => fake.calls("getUpdates").length > 0, "the adapter's first poll");
    state = { rootDir, fake, model, client };
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });

  return {
    get rootDir() {
      return ready().rootDir;
    },
    get fake() {
      return ready().fake;
    },
    get model() {
      return ready().model;
    },
    get client() {
      return ready().client;
    },
    async logs() {
      const paths = downcityPaths(ready().rootDir);
      const files = [join(paths.debugDir, "daemon.log")];
      for (const file of await readdir(paths.logsDir).catch(() => [])) files.push(join(paths.logsDir, file));
      return (await Promise.all(files.map((file) => readFile(file, "utf8").catch(() => "")))).join("\n");
    },
  };
}

/** The text of the last user turn of a model call (what the runtime made of the chat message). */
export function lastUserText(call: { messages: Array<{ role: string; text: string }> }): string {
  return call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
}

/**
 * Installs the Telegram adapter into the project as a package bundled from its TypeScript sources
 * (grammY, core and zod inside), so the daemon loads it by name exactly as from an npm install.
 */
export async function installTelegramAdapter(rootDir: string): Promise<void> {
  const conditions = new Set(["downcity-source", "import", "node"]);
  const source = fileURLToPath(
    moduleResolve("@downcity/adapters-telegram", new URL(import.meta.url), conditions),
  );
  await bundleFromSource({
    entry: { index: source },
    outDir: join(rootDir, "node_modules", "@downcity", "adapters-telegram"),
    inline: "all",
    requireShim: true,
    packageName: "@downcity/adapters-telegram",
  });
}
