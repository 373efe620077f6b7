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
