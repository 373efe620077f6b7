import {
  testAccessStore,
  testAdapterStateStore,
  testApprovalStore,
  testContactStore,
  testContextLease,
  testHistoryStore,
  testInboxStore,
  testMemoryStore,
  testOutboxStore,
  testRunJournal,
  testTaskStore,
  testUsageStore,
} from "@downcity/core/test";
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
testAccessStore(postgres);
testContactStore(postgres);
testMemoryStore(postgres);
testUsageStore(postgres);
testAdapterStateStore(postgres);
testApprovalStore(postgres);
testTaskStore(postgres);

testRunJournal({
  name: "postgres",
  async create() {
    const { name, url } = await createTestDatabase("journal");
    const stores: Array<{ close(): Promise<void> }> = [];
    return {
      async open() {
        const store = await openPostgresStore({ url, poolSize: 4, pruneEveryMs: 0 });
        stores.push(store);
        const journal = store.journal;
        if (!journal) throw new Error("the postgres store has no journal");
        // Closing the journal closes its store: a test's reopen is a worker restart.
        return {
          ...journal,
          async close() {
            await journal.close();
            await store.close();
          },
        };
      },
      async cleanup() {
        for (const store of stores) await store.close().catch(() => {});
        await dropTestDatabase(name);
      },
    };
  },
});
