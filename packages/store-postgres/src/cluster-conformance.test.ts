import { testClusterEventBus, testRunCancelStore } from "@downcity/core/test";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore } from "./postgres-store.js";

// The cluster contracts (cancel requests, live events) need several workers: PostgreSQL is their driver.
const postgres = {
  name: "postgres",
  sharedByWorkers: true,
  async create() {
    const { name, url } = await createTestDatabase("cluster");
    return {
      open: () => openPostgresStore({ url, poolSize: 4, pruneEveryMs: 0 }),
      cleanup: () => dropTestDatabase(name),
    };
  },
};

testRunCancelStore(postgres);
testClusterEventBus(postgres);
