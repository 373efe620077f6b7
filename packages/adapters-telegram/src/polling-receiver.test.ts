import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DowncityError, openFileChannelState } from "@downcity/core";
import { createRecordingContext, type RecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./test/fake-telegram-server.js";

const backoff = { initialMs: 20, maxMs: 200 };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(stateDir?: string) {
  const fake = await startFakeTelegramServer();
  cleanup.push(() => fake.close());
  const recording = await createRecordingContext({ channel: "tg", stateDir });
  cleanup.push(() => recording.dispose());
  return { fake, recording };
}

function adapterFor(fake: FakeTelegramServer, extra: Record<string, unknown> = {}) {
  const adapter = createTelegramAdapter(
    { token: fake.token, apiRoot: fake.url, pollTimeoutSeconds: 1, ...extra },
    { backoff },
  );
  cleanup.push(() => adapter.stop());
  return adapter;
}

async function started(adapter: TelegramAdapter, recording: RecordingContext) {
  await adapter.start(recording.context);
  await recording.until(() => adapter.bot() !== undefined, "getMe");
  return adapter;
}

function everythingLogged(recording: RecordingContext): string {
  return JSON.stringify({ logs: recording.logs, states: recording.states });
}

describe("telegram polling", () => {
  it("accepts a DM into the inbox and only then asks for the next offset", async () => {
    const { fake, recording } = await setup();
    const release = recording.hold();
    const adapter = await started(adapterFor(fake), recording);
    expect(adapter.bot()).toEqual({ id: fake.bot.id, username: "dc_test_bot" });
    const id = fake.injectMessage({ text: "hello agent" });
    // The inbox holds the accept: no poll may confirm the update meanwhile.
    await recording.until(
      () => fake.calls("getUpdates").some((call) => call.payload.offset === undefined),
      "first poll",
    );
    const pollsBefore = fake.calls("getUpdates").length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(fake.calls("getUpdates").length).toBe(pollsBefore);
    expect(fake.isConfirmed(id)).toBe(false);
    release();
    await recording.until(() => fake.isConfirmed(id), "confirmation");
    expect(recording.events).toHaveLength(1);
    expect(recording.events[0]).toMatchObject({
      eventId: String(id),
      chatType: "direct",
      text: "hello agent",
    });
    expect(fake.calls("deleteWebhook")).toHaveLength(1);
    expect(recording.states.at(-1)?.state).toBe("connected");
  });

  it("does not confirm an update the inbox failed to accept: it is redelivered and accepted once", async () => {
    const { fake, recording } = await setup();
    recording.failNext(2);
    await started(adapterFor(fake), recording);
    const first = fake.injectMessage({ text: "one" });
    const second = fake.injectMessage({ text: "two" });
    await recording.until(() => fake.isConfirmed(second), "both confirmed");
    expect(recording.events.map((event) => event.text)).toEqual(["one", "two"]);
    expect(fake.isConfirmed(first)).toBe(true);
    // Every poll made while "one" was failing asked from "one" again (no offset past it).
    const offsets = fake.calls("getUpdates").map((call) => call.payload.offset);
    expect(offsets.filter((offset) => offset !== undefined && Number(offset) > first).length).toBeGreaterThan(
      0,
    );
    expect(
      recording.states.some((state) => state.state === "retrying" && /inbox/.test(state.error ?? "")),
    ).toBe(true);
  });

  it("acknowledges an update the inbox rejects as invalid, so it cannot block the ones behind it", async () => {
    const { fake, recording } = await setup();
    const inner = recording.context.inbox;
    recording.context.inbox = {
      accept: async (event) => {
        if (event.text === "poison")
          throw new DowncityError("INVALID_INPUT", "Invalid event from channel tg: text: too long", {
            field: "text",
          });
        return inner.accept(event);
      },
    };
    await started(adapterFor(fake), recording);
    const poison = fake.injectMessage({ text: "poison" });
    const next = fake.injectMessage({ text: "next" });
    await recording.until(() => fake.isConfirmed(next), "the update behind the invalid one");
    expect(fake.isConfirmed(poison)).toBe(true);
    expect(recording.events.map((event) => event.text)).toEqual(["next"]);
    expect(
      recording.logs.some(
        (line) => line.level === "warn" && /rejected by the inbox/.test(line.message ?? ""),
      ),
    ).toBe(true);
  });

  it("hands a duplicate delivery to the inbox, which dedupes it", async () => {
    const { fake, recording } = await setup();
    await started(adapterFor(fake), recording);
    const id = fake.injectMessage({ text: "once" });
    await recording.until(() => fake.isConfirmed(id), "confirmation");
    fake.redeliver(id);
    await recording.until(() => recording.events.length === 2, "redelivery");
    expect(recording.events.map((event) => event.eventId)).toEqual([String(id), String(id)]);
  });

  it("persists the offset: a restart neither replays accepted updates nor skips unaccepted ones", async () => {
    const { fake, recording } = await setup();
    const first = adapterFor(fake);
    await started(first, recording);
    const release = recording.hold();
    const accepted = fake.injectMessage({ text: "accepted before the stop" });
    await recording.until(() => recording.attempts() === 1, "accept in flight");
    // Stop during the accept: it completes, but Telegram never sees the confirming poll.
    const stopping = first.stop();
    release();
    await stopping;
    expect(recording.events).toHaveLength(1);
    expect(fake.isConfirmed(accepted)).toBe(false);
    const saved = JSON.parse(await readFile(join(recording.context.stateDir, "offset.json"), "utf8"));
    expect(saved).toMatchObject({ botId: fake.bot.id, offset: accepted + 1 });

    const failing = fake.injectMessage({ text: "failed before the stop" });
    const restarted = await createRecordingContext({ channel: "tg", stateDir: recording.context.stateDir });
    restarted.failNext(1);
    const second = adapterFor(fake);
    await started(second, restarted);
    await restarted.until(() => restarted.logs.some((line) => line.level === "error"), "failed accept");
    await second.stop();
    expect(fake.isConfirmed(failing)).toBe(false);

    const third = await createRecordingContext({ channel: "tg", stateDir: recording.context.stateDir });
    const adapter = adapterFor(fake);
    await started(adapter, third);
    await third.until(() => fake.isConfirmed(failing), "redelivery after restart");
    expect(third.events.map((event) => event.text)).toEqual(["failed before the stop"]);
    expect(fake.calls("getUpdates").find((call) => call.payload.offset !== undefined)?.payload.offset).toBe(
      accepted + 1,
    );
  });

  it("keeps the offset in the channel's state: a poller on another worker resumes from it", async () => {
    const { fake, recording } = await setup();
    // The channel's state as the host hands it out (the store's; here its file driver in a folder
    // of its own), shared by two pollers whose state folders differ, as on two machines.
    const sharedDir = await mkdtemp(join(tmpdir(), "dc-tg-shared-state-"));
    cleanup.push(() => rm(sharedDir, { recursive: true, force: true }));
    const state = openFileChannelState(sharedDir);
    const first = adapterFor(fake);
    await first.start({ ...recording.context, state });
    await recording.until(() => first.bot() !== undefined, "getMe");
    const release = recording.hold();
    const accepted = fake.injectMessage({ text: "accepted by the first poller" });
    await recording.until(() => recording.attempts() === 1, "accept in flight");
    // Stopped during the accept: Telegram never sees the confirming poll, so only the saved offset
    // keeps the next poller from being handed this update again.
    const stopping = first.stop();
    release();
    await stopping;
    expect(fake.isConfirmed(accepted)).toBe(false);
    expect(await state.get("offset")).toMatchObject({ botId: fake.bot.id, offset: accepted + 1 });
    await expect(stat(join(recording.context.stateDir, "offset.json"))).rejects.toMatchObject({
      code: "ENOENT",
    });

    const other = await createRecordingContext({ channel: "tg" });
    cleanup.push(() => other.dispose());
    const second = adapterFor(fake);
    const polledBefore = fake.calls("getUpdates").length;
    await second.start({ ...other.context, state });
    const next = fake.injectMessage({ text: "after the handover" });
    await other.until(() => fake.isConfirmed(next), "the next update accepted by the second poller");
    expect(other.events.map((event) => event.text)).toEqual(["after the handover"]);
    expect(fake.calls("getUpdates")[polledBefore]?.payload.offset).toBe(accepted + 1);
  });

  it("surfaces 409 Conflict as a retrying channel state and recovers once the other poller is gone", async () => {
    const { fake, recording } = await setup();
    fake.setConflict(true);
    await started(adapterFor(fake), recording);
    await recording.until(
      () =>
        recording.states.some(
          (state) => state.state === "retrying" && /409 Conflict/.test(state.error ?? ""),
        ),
      "409 state",
    );
    const conflictPolls = fake.calls("getUpdates").length;
    expect(
      recording.logs.some((line) => line.level === "warn" && /409 Conflict/.test(line.message ?? "")),
    ).toBe(true);
    fake.setConflict(false);
    const id = fake.injectMessage({ text: "after the conflict" });
    await recording.until(() => fake.isConfirmed(id), "delivery after conflict");
    expect(recording.states.at(-1)).toEqual({ state: "connected" });
    expect(conflictPolls).toBeGreaterThanOrEqual(1);
  });

  it("two pollers on one token: Telegram ends the older poll with 409, which is reported, not fatal", async () => {
    const { fake, recording } = await setup();
    const other = await createRecordingContext({ channel: "tg" });
    cleanup.push(() => other.dispose());
    await started(adapterFor(fake, { pollTimeoutSeconds: 5 }), recording);
    await recording.until(() => fake.calls("getUpdates").length >= 1, "first poll");
    await started(adapterFor(fake, { pollTimeoutSeconds: 5 }), other);
    await recording.until(
      () => [...recording.states, ...other.states].some((state) => /409 Conflict/.test(state.error ?? "")),
      "a 409 from the competing poll",
    );
    // Both may get the update before either confirms it; they hand the inbox the same event id to dedupe.
    const id = fake.injectMessage({ text: "contended" });
    await recording.until(() => fake.isConfirmed(id), "the contended update");
    const seen = [...recording.events, ...other.events];
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(new Set(seen.map((event) => event.eventId))).toEqual(new Set([String(id)]));
  });

  it("waits out a 429 on getUpdates and survives a dropped connection", async () => {
    const { fake, recording } = await setup();
    await started(adapterFor(fake), recording);
    await recording.until(() => fake.calls("getUpdates").length > 0, "first poll");
    fake.failNext("getUpdates", { status: 429, retryAfter: 1 });
    fake.dropNext("getUpdates");
    const id = fake.injectMessage({ text: "eventually" });
    const startedAt = Date.now();
    await recording.until(() => fake.isConfirmed(id), "delivery after 429 and drop");
    expect(recording.events.map((event) => event.text)).toEqual(["eventually"]);
    expect(
      recording.states.some((state) => state.state === "retrying" && /429/.test(state.error ?? "")),
    ).toBe(true);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
    expect(everythingLogged(recording)).not.toContain(fake.token);
  });

  it("reports a rejected token as failed without ever logging it", async () => {
    const { fake, recording } = await setup();
    const adapter = createTelegramAdapter(
      { token: "999:WrongTokenValue_abcdef123", apiRoot: fake.url, pollTimeoutSeconds: 1 },
      { backoff },
    );
    cleanup.push(() => adapter.stop());
    await adapter.start(recording.context);
    await recording.until(() => recording.states.some((state) => state.state === "failed"), "failed state");
    expect(recording.states.find((state) => state.state === "failed")?.error).toMatch(
      /401.*channels\.tg\.token/,
    );
    expect(everythingLogged(recording)).not.toContain("WrongTokenValue");
  });

  it("start and stop are idempotent; stop ends the long poll and waits for the accept in flight", async () => {
    const { fake, recording } = await setup();
    const adapter = adapterFor(fake, { pollTimeoutSeconds: 30 });
    await Promise.all([adapter.start(recording.context), adapter.start(recording.context)]);
    await recording.until(() => adapter.bot() !== undefined, "getMe");
    expect(fake.calls("getMe")).toHaveLength(1);
    const release = recording.hold();
    const id = fake.injectMessage({ text: "in flight" });
    await recording.until(
      () => fake.calls("getUpdates").length >= 1 && recording.events.length === 0,
      "delivery",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    let stopped = false;
    const stopping = adapter.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    await adapter.stop();
    expect(recording.events.map((event) => event.eventId)).toEqual([String(id)]);
    const saved = JSON.parse(await readFile(join(recording.context.stateDir, "offset.json"), "utf8"));
    expect(saved.offset).toBe(id + 1);
    // No poll after the stop: the 30 s long poll was aborted, not waited out.
    const polls = fake.calls("getUpdates").length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.calls("getUpdates").length).toBe(polls);
  });
});
