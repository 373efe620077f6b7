/**
 * The complete public surface of @downcity/store-postgres: the PostgreSQL implementation of core's
 * storage contracts, so several daemons on several machines serve one agent.
 */
import { defineStoreAdapter } from "@downcity/core";
import { openPostgresStore, type PostgresStoreOptions } from "./postgres-store.js";

export { checkPrivileges } from "./check-privileges.js";
export { type Migration, migrations, runMigrations } from "./migrations.js";
export { acquirePollerLock, type PollerLock } from "./poller-lock.js";
export {
  openPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
  postgresStoreOptionsSchema,
} from "./postgres-store.js";
export type { PruneResult } from "./prune-store.js";
export type { SqlClient } from "./sql-client.js";
export type { WakeListener } from "./wake-listener.js";

/** The adapter `"store": { "adapter": "@downcity/store-postgres", "url": "${DATABASE_URL}" }` loads. */
const storePostgres = defineStoreAdapter({
  name: "@downcity/store-postgres",
  // The section's other keys (poolSize, pollMs, ...) are validated by openPostgresStore as store.<key>.
  open: ({ url, leaseMs, options }) =>
    openPostgresStore({
      ...options,
      url: url ?? "",
      ...(leaseMs ? { leaseMs } : {}),
    } as PostgresStoreOptions),
});
export default storePostgres;
