import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { moduleResolve } from "import-meta-resolve";

/**
 * Installs the webhook adapter into the project as a package bundled from its TypeScript sources
 * (with core and zod inside), so the daemon loads it by name exactly as from an npm install.
 */
export async function installWebhookAdapter(rootDir: string): Promise<void> {
  const conditions = new Set(["downcity-source", "import", "node"]);
  const source = fileURLToPath(
    moduleResolve("@downcity/adapters-webhook", new URL(import.meta.url), conditions),
  );
  await bundleFromSource({
    entry: { index: source },
    outDir: join(rootDir, "node_modules", "@downcity", "adapters-webhook"),
    inline: "all",
    packageName: "@downcity/adapters-webhook",
  });
}

/** The project's `hook` channel: the webhook adapter listening on `port`, posting to `url`, signed with `secret`. */
export interface WebhookChannelSetup {
  port: number;
  url: string;
  secret: string;
  access: Record<string, unknown>;
  delivery?: Record<string, unknown>;
}

/**
 * Writes the `hook` webhook channel into the project's downcity.json (replacing its channels),
 * with `sections` (approvals, telemetry, run, ...) set beside it.
 */
export async function writeWebhookChannel(
  rootDir: string,
  channel: WebhookChannelSetup,
  sections: Record<string, unknown> = {},
): Promise<void> {
  const configPath = join(rootDir, "downcity.json");
  const config = JSON.parse(await readFile(configPath, "utf8"));
  config.channels = {
    hook: {
      adapter: "@downcity/adapters-webhook",
      listen: { host: "127.0.0.1", port: channel.port },
      url: channel.url,
      secret: channel.secret,
      access: channel.access,
      ...(channel.delivery ? { delivery: channel.delivery } : {}),
    },
  };
  Object.assign(config, sections);
  await writeFile(configPath, JSON.stringify(config, null, 2));
}
