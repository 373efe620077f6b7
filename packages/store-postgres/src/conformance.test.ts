import { testContextLease, testHistoryStore, testInboxStore, testOutboxStore } from "@downcity/core/test";
import pg from "pg";
import { inject } from "vitest";
import { openPostgresStore } from "./postgres-store.js";

let databases = 0;
const postgres = {
  name: "postgres",
  sharedByWorkers: true,
  async create() {
    const name = `conformance_${process.pid}_${++databases}`;
    const admin = new pg.Client({ connectionString: inject("postgresUrl") });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = inject("postgresUrl").replace(/\/postgres$/, `/${name}`);
    return {
      open: () => openPostgresStore({ url, poolSize: 4 }),
      async cleanup() {
        const client = new pg.Client({ connectionString: inject("postgresUrl") });
        await client.connect();
        await client.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await client.end();
      },
    };
  },
};

testHistoryStore(postgres);
testInboxStore(postgres);
testOutboxStore(postgres);
testContextLease(postgres);
