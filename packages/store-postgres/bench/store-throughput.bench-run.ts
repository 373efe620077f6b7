import pg from "pg";
import { expect, inject, it } from "vitest";
import "../test/global-setup.js";
import { openPostgresStore } from "../src/postgres-store.js";
import { recordResults } from "./record-results.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 500);

// Same server, same run, one connection doing one statement at a time: the baseline is a raw single-row INSERT.
it("history append and inbox accept run at least half as fast as a raw single-row INSERT", async () => {
  const admin = new pg.Client({ connectionString: inject("postgresUrl") });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS bench WITH (FORCE)");
  await admin.query("CREATE DATABASE bench");
  await admin.end();
  const url = inject("postgresUrl").replace(/\/postgres$/, "/bench");
  const store = await openPostgresStore({ url, poolSize: 2 });
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  await raw.query("CREATE TABLE raw_rows (id bigserial PRIMARY KEY, context_id text, body jsonb)");
  const body = JSON.stringify({ id: "m", role: "user", parts: [{ type: "text", text: "hello there" }] });

  const time = async (work: (index: number) => Promise<unknown>) => {
    const started = process.hrtime.bigint();
    for (let index = 0; index < rounds; index++) await work(index);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  // Alternated in slices so a burst of load on the machine hits both alike.
  const totals = { raw: 0, append: 0, accept: 0 };
  let offset = 0;
  for (let slice = 0; slice < 4; slice++) {
    const base = offset;
    totals.raw += await time((index) =>
      raw.query("INSERT INTO raw_rows (context_id, body) VALUES ($1, $2)", [`web:c${index % 50}`, body]),
    );
    totals.append += await time((index) =>
      store.history.context(`web:c${index % 50}`).append({
        id: `m${base + index}`,
        role: "user",
        parts: [{ type: "text", text: "hello there" }],
      }),
    );
    totals.accept += await time((index) =>
      store.inbox.accept({
        channel: "web",
        eventId: `e${base + index}`,
        contextId: `web:c${index % 50}`,
        message: { text: "hello there" },
      }),
    );
    offset += rounds;
  }
  await raw.end();
  await store.close();
  const perSecond = (ms: number) => Math.round((rounds * 4) / (ms / 1000));
  const result = {
    rounds: rounds * 4,
    rawInsertPerSecond: perSecond(totals.raw),
    historyAppendPerSecond: perSecond(totals.append),
    inboxAcceptPerSecond: perSecond(totals.accept),
    historyAppendRatio: Number((totals.raw / totals.append).toFixed(2)),
    inboxAcceptRatio: Number((totals.raw / totals.accept).toFixed(2)),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  recordResults(result);
  expect(result.historyAppendRatio).toBeGreaterThanOrEqual(0.5);
  expect(result.inboxAcceptRatio).toBeGreaterThanOrEqual(0.5);
});
