import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFileChannelState } from "@downcity/core";
import { createRecordingContext, useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createQqAdapter } from "./qq-adapter.js";
import { qqMessageSeq } from "./qq-sender.js";
import { fakeQqConnection, fakeQqSecret, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("QQ gateway", () => {
  const bed = useRecordingTestBed({
    createFake: () => startFakeQqPlatform(),
    secrets: [fakeQqSecret, "qqtok-"],
  });
  /** Starts an adapter; `restarted` gives it a fresh context over the same state folder, as after a restart. */
  const start = async (restarted = false) => {
    if (restarted) await bed.restart();
    return bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
        reconnectDelayMs: 20,
      }),
    );
  };
  const accepted = () => bed.recording.events.map((event) => event.text);

  it("identifies, maps C2C and group @-messages, ignores plain group messages and empty ones, and replies with msg_id + a fixed msg_seq", async () => {
    const adapter = await start();
    expect(bed.recording.states.at(-1)).toEqual({ state: "connected" });
    const direct = await bed.fake.deliver({
      chatType: "direct",
      chatId: "user-openid-1",
      userId: "user-openid-1",
      text: " hello ",
    });
    expect(direct.acked).toBe(true);
    await bed.fake.deliver({ chatType: "group", chatId: "group-1", userId: "member-1", text: "no mention" });
    await bed.fake.deliver({
      chatType: "direct",
      chatId: "user-openid-1",
      userId: "user-openid-1",
      text: "",
      nonText: true,
    });
    const group = await bed.fake.deliver({
      chatType: "group",
      chatId: "group-1",
      userId: "member-1",
      text: "status?",
      mentionBot: true,
    });
    expect(group.acked).toBe(true);
    expect(bed.recording.events).toMatchObject([
      {
        eventId: direct.eventId,
        chatType: "direct",
        chatId: "user-openid-1",
        userId: "user-openid-1",
        text: "hello",
        mentionedBot: false,
        messageId: `msg-${direct.eventId}`,
      },
      {
        eventId: group.eventId,
        chatType: "group",
        chatId: "group-1",
        userId: "member-1",
        text: "status?",
        mentionedBot: true,
      },
    ]);

    await adapter.send(
      { chatId: "group-1", replyToMessageId: `msg-${group.eventId}` },
      { text: "fine" },
      { idempotencyKey: "k-1" },
    );
    // A resend of the same outbox entry after a crash: the platform recognises msg_id + msg_seq and nothing doubles.
    await adapter.send(
      { chatId: "group-1", replyToMessageId: `msg-${group.eventId}` },
      { text: "fine" },
      { idempotencyKey: "k-1" },
    );
    expect(bed.fake.sent()).toEqual([
      {
        chatId: "group-1",
        text: "fine",
        format: "markdown",
        idempotencyKey: `msg-${group.eventId}:${qqMessageSeq("k-1")}`,
      },
    ]);
    expect(bed.fake.sendRequests()[0]).toMatchObject({
      path: "/v2/groups/group-1/messages",
      body: {
        msg_type: 2,
        markdown: { content: "fine" },
        msg_id: `msg-${group.eventId}`,
        msg_seq: qqMessageSeq("k-1"),
      },
    });
    await adapter.send(
      { chatId: "user-openid-1", chatType: "direct", replyToMessageId: `msg-${direct.eventId}` },
      { text: "hi" },
      { idempotencyKey: "k-2" },
    );
    expect(bed.fake.sendRequests().at(-1)?.path).toBe("/v2/users/user-openid-1/messages");
  });

  it("resumes after a dropped connection and receives what was sent meanwhile, exactly once", async () => {
    await start();
    await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "before" });
    bed.fake.dropConnection();
    const during = bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "while away" });
    expect((await during).acked).toBe(true);
    expect(bed.fake.stats().identifies).toBe(1);
    expect(bed.fake.stats().resumes).toHaveLength(1);
    expect(accepted()).toEqual(["before", "while away"]);
  });

  it("follows op 7 Reconnect with a resume, and op 9 Invalid Session with a fresh identify", async () => {
    await start();
    bed.fake.sendReconnect();
    await bed.recording.until(() => bed.fake.stats().resumes.length === 1, "the resume after op 7");
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "after op 7" })).acked,
    ).toBe(true);
    bed.fake.sendInvalidSession(false);
    await bed.recording.until(() => bed.fake.stats().identifies === 2, "the identify after op 9");
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "after op 9" })).acked,
    ).toBe(true);
    expect(accepted()).toEqual(["after op 7", "after op 9"]);
  });

  it("re-identifies after close 4009, and stops with a clear error on 4914", async () => {
    await start();
    bed.fake.closeWith(4009);
    await bed.recording.until(() => bed.fake.stats().identifies === 2, "the identify after 4009");
    expect(bed.fake.stats().resumes).toHaveLength(0);
    bed.fake.closeWith(4914);
    await bed.recording.until(() => bed.recording.states.at(-1)?.state === "failed", "the failed state");
    expect(bed.recording.states.at(-1)?.error).toMatch(/offline or limited to its sandbox \(close 4914\)/);
    const connections = bed.fake.stats().connections;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bed.fake.stats().connections).toBe(connections);
  });

  it("fetches a fresh token after 4004, and stops when the platform rejects the credentials again", async () => {
    await start();
    bed.fake.revokeTokens();
    bed.fake.closeWith(4004);
    await bed.recording.until(() => bed.fake.stats().resumes.length === 1, "the resume with a fresh token");
    expect(bed.fake.tokensIssued()).toBe(2);
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "still here" })).acked,
    ).toBe(true);
    bed.fake.rejectIdentify(true);
    bed.fake.closeWith(4004);
    await bed.recording.until(() => bed.recording.states.at(-1)?.state === "failed", "the failed state");
    expect(bed.recording.states.at(-1)?.error).toMatch(
      /rejected the access token twice \(close 4004\): check appId and clientSecret/,
    );
  });

  it("keeps reconnecting through a token endpoint outage instead of sitting on a dead connection", async () => {
    await start();
    bed.fake.revokeTokens();
    bed.fake.failTokenRequests(2);
    bed.fake.closeWith(4004);
    await bed.recording.until(
      () =>
        bed.recording.states.some((state) =>
          /QQ gateway discovery failed: QQ access token request answered 500/.test(state.error ?? ""),
        ),
      "the retrying state naming the token failure",
    );
    await bed.recording.until(
      () => bed.fake.stats().resumes.length === 1,
      "the resume once tokens come back",
    );
    // The fake counts the resume when it arrives; the adapter reports connected once RESUMED is back.
    await bed.recording.until(
      () => bed.recording.states.at(-1)?.state === "connected",
      "connected again after the resume",
    );
    expect(bed.recording.states.at(-1)).toEqual({ state: "connected" });
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "back" })).acked,
    ).toBe(true);
  });

  it("holds the resume seq below an event whose accept has not finished, so the resume replays it", async () => {
    await start();
    await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "one" });
    const release = bed.recording.hold();
    const slow = bed.fake.deliver(
      { chatType: "direct", chatId: "u1", userId: "u1", text: "two" },
      { timeoutMs: 15_000 },
    );
    await bed.recording.until(
      () => bed.recording.attempts() === 2,
      "the accept of the second event to begin",
    );
    const confirmedBefore = bed.fake.stats().heartbeats;
    await bed.recording.until(
      () => bed.fake.stats().heartbeats > confirmedBefore + 1,
      "heartbeats while the accept is held",
    );
    bed.fake.dropConnection();
    await bed.recording.until(() => bed.fake.stats().resumes.length === 1, "the resume");
    // READY was seq 1, "one" seq 2, "two" seq 3: the resume asks for everything after 2.
    expect(bed.fake.stats().resumes[0]).toEqual({ seq: 2 });
    release();
    expect((await slow).acked).toBe(true);
    expect(new Set(accepted())).toEqual(new Set(["one", "two"]));
  });

  it("resumes from a failed accept: the platform replays the event and it is taken once", async () => {
    await start();
    bed.recording.failNext(1);
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "disk full once" }))
        .acked,
    ).toBe(true);
    expect(accepted()).toEqual(["disk full once"]);
    expect(bed.fake.stats().resumes).toEqual([{ seq: 1 }]);
  });

  it("reconnects when heartbeats go unanswered (half-open connection)", async () => {
    await start();
    bed.fake.answerHeartbeats(false);
    await bed.recording.until(
      () => bed.fake.stats().resumes.length >= 1,
      "a resume after missing heartbeat acks",
      10_000,
    );
    bed.fake.answerHeartbeats(true);
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "alive" })).acked,
    ).toBe(true);
  });

  it("resumes the saved session after a restart of the adapter", async () => {
    const first = await start();
    await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "first life" });
    await first.stop();
    const saved = JSON.parse(await readFile(join(bed.recording.context.stateDir, "qq-session.json"), "utf8"));
    expect(saved.seq).toBe(2);
    const away = bed.fake.deliver({
      chatType: "direct",
      chatId: "u1",
      userId: "u1",
      text: "sent while down",
    });
    await start(true);
    expect((await away).acked).toBe(true);
    expect(bed.fake.stats().identifies).toBe(1);
    expect(bed.fake.stats().resumes).toEqual([{ seq: 2 }]);
    expect(accepted()).toContain("sent while down");
  });

  it("keeps the session in the channel's state: a gateway on another worker resumes it", async () => {
    // The channel's state as the host hands it out (the store's; here its file driver in a folder
    // of its own), shared by two adapters whose state folders differ, as on two machines.
    const sharedDir = await mkdtemp(join(tmpdir(), "dc-qq-shared-state-"));
    const state = openFileChannelState(sharedDir);
    const other = await createRecordingContext({ channel: "qq" });
    const connection = { ...fakeQqConnection(bed.fake), reconnectDelayMs: 20 };
    const first = createQqAdapter(connection);
    const second = createQqAdapter(connection);
    try {
      await first.start({ ...bed.recording.context, state });
      await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "first life" });
      await first.stop();
      expect(await state.get("qq-session")).toMatchObject({ seq: 2 });
      await expect(stat(join(bed.recording.context.stateDir, "qq-session.json"))).rejects.toMatchObject({
        code: "ENOENT",
      });
      const away = bed.fake.deliver({
        chatType: "direct",
        chatId: "u1",
        userId: "u1",
        text: "sent while down",
      });
      await second.start({ ...other.context, state });
      expect((await away).acked).toBe(true);
      expect(bed.fake.stats().identifies).toBe(1);
      expect(bed.fake.stats().resumes).toEqual([{ seq: 2 }]);
      expect(other.events.map((event) => event.text)).toEqual(["sent while down"]);
    } finally {
      await first.stop();
      await second.stop();
      await other.dispose();
      await rm(sharedDir, { recursive: true, force: true });
    }
  });
});
