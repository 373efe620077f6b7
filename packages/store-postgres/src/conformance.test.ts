import { testContextLease, testHistoryStore, testInboxStore, testOutboxStore } from "@downcity/core/test";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore } from "./postgres-store.js";

// The history suite includes chat_load_history finding what compaction archived.
const postgres = {
  name: "postgres",
  sharedByWorkers: true,
  async create() {
    const { name, url } = await createTestDatabase("conformance");
    return {
      open: () => openPostgresStore({ url, poolSize: 4 }),
      cleanup: () => dropTestDatabase(name),
    };
  },
};

testHistoryStore(postgres);
testInboxStore(postgres);
testOutboxStore(postgres);
testContextLease(postgres);
