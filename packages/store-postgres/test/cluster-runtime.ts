// The code worker daemons run in the multi-worker tests and benchmarks, bundled from this
// checkout's TypeScript sources (never a stale dist).
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { moduleResolve } from "import-meta-resolve";

const sourceConditions = new Set(["downcity-source", "import", "node"]);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * What worker daemons run, bundled from the TypeScript sources of this checkout (never a stale
 * dist): the daemon's entry, and the two packages each project installs.
 */
export interface ClusterRuntime {
  daemonEntry: string;
  /** A package folder of @downcity/store-postgres (index.js + package.json). */
  storePackage: string;
  /** A package folder of @downcity/adapters-webhook. */
  webhookPackage: string;
  dispose(): Promise<void>;
}

/**
 * Bundles the daemon (npm dependencies external, resolved from the daemon's own node_modules, so
 * the bundle lives in its cache folder), the store (pg external, resolved from this package) and
 * the webhook adapter (self-contained). `WORKER_CLUSTER_DAEMON_ENTRY` replaces the daemon bundle.
 * `sourcemap` writes source maps beside the bundles (a benchmark attributes CPU profiles with them).
 */
export async function prepareClusterRuntime(options: { sourcemap?: boolean } = {}): Promise<ClusterRuntime> {
  const sourcemap = options.sourcemap ?? false;
  const tag = `${process.pid}-${randomBytes(3).toString("hex")}`;
  const daemonSource = fileURLToPath(
    moduleResolve("@downcity/daemon/daemon-main", new URL(import.meta.url), sourceConditions),
  );
  const daemonCache = join(
    dirname(dirname(daemonSource)),
    "node_modules",
    ".cache",
    "downcity-worker-cluster",
    tag,
  );
  const ownCache = join(here(".."), "node_modules", ".cache", "downcity-worker-cluster", tag);
  const storePackage = join(ownCache, "store-postgres");
  const webhookPackage = join(ownCache, "adapters-webhook");
  const external = process.env.WORKER_CLUSTER_DAEMON_ENTRY;
  const dispose = async () => {
    await rm(daemonCache, { recursive: true, force: true });
    await rm(ownCache, { recursive: true, force: true });
  };
  try {
    await Promise.all([
      external
        ? Promise.resolve()
        : bundleFromSource({
            entry: { "daemon-main": daemonSource },
            outDir: daemonCache,
            inline: "ours",
            // web-tree-sitter loads its .wasm beside its module (the approvals' bash parser), as in the daemon's own bundle.
            external: ["node-pty", "@lydell/node-pty", "web-tree-sitter"],
            requireShim: true,
            sourcemap,
          }),
      bundleFromSource({
        entry: { index: here("../src/index.ts") },
        outDir: storePackage,
        inline: "all",
        external: ["pg"],
        requireShim: true,
        sourcemap,
        packageName: "@downcity/store-postgres",
      }),
      bundleFromSource({
        entry: {
          index: fileURLToPath(
            moduleResolve("@downcity/adapters-webhook", new URL(import.meta.url), sourceConditions),
          ),
        },
        outDir: webhookPackage,
        inline: "all",
        requireShim: true,
        packageName: "@downcity/adapters-webhook",
      }),
    ]);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    daemonEntry: external ?? join(daemonCache, "daemon-main.js"),
    storePackage,
    webhookPackage,
    dispose,
  };
}
