import { DowncityError, type NewJournalRecord } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

// Two workers' stores on one database: the old owner of a run and the worker that resumed it.
const opened: PostgresStore[] = [];
const created: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

const at = () => new Date().toISOString();
const step = (step: number, text: string): NewJournalRecord => ({
  type: "step",
  at: at(),
  step,
  finishReason: "tool-calls",
  usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, totalTokens: 2 },
  text,
  toolCallIds: [],
  messages: [],
  latencyMs: 1,
});

describe("run journal fencing", () => {
  it("refuses the old owner's late step once another worker resumed the run", async () => {
    const { name, url } = await createTestDatabase("fence");
    created.push(name);
    const oldOwner = await openPostgresStore({ url, poolSize: 2 });
    opened.push(oldOwner);
    const newOwner = await openPostgresStore({ url, poolSize: 2 });
    opened.push(newOwner);
    const [oldJournal, newJournal] = [oldOwner.journal, newOwner.journal];
    if (!oldJournal || !newJournal) throw new Error("the Postgres store has a journal");

    await oldJournal.append("r1", [
      {
        type: "run",
        at: at(),
        requestId: "r1",
        contextId: "web:a",
        messageIds: ["m1"],
        eventIds: [],
        origin: "user",
        worker: "old",
        settings: { maxSteps: 30, keepLast: 40 },
      },
      step(0, "first step, old owner"),
    ]);
    // The claim lapsed; the new owner resumes from step 1 under attempt 2.
    await newJournal.append("r1", [
      { type: "attempt", at: at(), attempt: 2, fromStep: 1, reason: "restart", worker: "new" },
    ]);
    // The old owner's in-flight step ends after that: its write is refused, not stored beside the new one.
    const refused = await oldJournal.append("r1", [step(1, "late step, old owner")]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(DowncityError.isInstance(refused) && refused.code).toBe("CONFLICT");
    expect(String((refused as Error).message)).toContain("attempt 2");
    await newJournal.append("r1", [step(1, "step 1, new owner")]);

    const records = (await newJournal.read("r1")) ?? [];
    const steps = records.flatMap((record) => (record.type === "step" ? [[record.step, record.text]] : []));
    expect(steps).toEqual([
      [0, "first step, old owner"],
      [1, "step 1, new owner"],
    ]);
    // A journal that never wrote this run (no attempt known) is not fenced: a reader's tools still append.
    const third = await openPostgresStore({ url, poolSize: 2 });
    opened.push(third);
    await third.journal?.append("r1", [step(2, "unfenced")]);
    expect((await newJournal.read("r1"))?.length).toBe(records.length + 1);
  });
});
