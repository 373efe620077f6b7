import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileStore } from "../../store/file/file-store.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import { createScriptedModel, type ScriptedModel } from "../../test/scripted-model.js";
import type { ChannelAdapter, ChannelContext } from "../adapter/channel-adapter.js";
import { defineChannelAdapter } from "../adapter/channel-adapter.js";
import { ChannelSendError } from "../adapter/channel-send-error.js";
import { type ChannelHost, createChannelHost } from "./channel-host.js";
import { createChannelServices } from "./channel-services.js";

// An in-process adapter: the host is under test here; real adapters prove themselves against their
// fake platforms with testChannelAdapter.
function memoryChannel(options: { polls?: boolean } = {}) {
  const sent: Array<{ target: ChannelTarget; text: string; key: string }> = [];
  const failures: Array<Error> = [];
  const calls: string[] = [];
  let context: ChannelContext | undefined;
  const adapter: ChannelAdapter = {
    capabilities: {
      maxTextLength: 20,
      threads: true,
      markdown: "none",
      idempotentSends: false,
      ...(options.polls ? { polls: true } : {}),
    },
    async start(ctx) {
      calls.push("start");
      context = ctx;
    },
    async stop() {
      calls.push("stop");
      context = undefined;
    },
    async send(target, message, options) {
      const failure = failures.shift();
      if (failure) throw failure;
      sent.push({ target, text: message.text, key: options.idempotencyKey });
      return { messageId: `m${sent.length}` };
    },
  };
  const definition = defineChannelAdapter({ name: "memory", options: z.object({}), create: () => adapter });
  return {
    definition,
    sent,
    failures,
    calls,
    deliver: (event: {
      eventId: string;
      chatId: string;
      userId: string;
      text: string;
      username?: string;
    }) => {
      if (!context) throw new Error("the channel is not started");
      return context.inbox.accept({ chatType: "direct", messageId: event.eventId, ...event });
    },
  };
}

/** A promise the test opens when it is ready. */
function gate() {
  let open: () => void = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}

let root: string;
let runtime: AgentRuntime;
let host: ChannelHost;
let scripted: ScriptedModel;
let channel: ReturnType<typeof memoryChannel>;
// Every behaviour holds on the default store (the file store, events joining a running run) and under
// the claim policy of stores several workers share (one claimed event per context, leases).
let shared: boolean;
let store: DowncityStore | undefined;

const start = async (
  access: Record<string, unknown> = { dm: "open" },
  given: { store?: DowncityStore; leaseMs?: number } = {},
) => {
  store =
    given.store ??
    (shared ? await openFileStore({ rootDir: root, claimPolicy: "group-at-a-time" }) : undefined);
  runtime = createAgentRuntime({
    rootDir: root,
    model: scripted.model,
    logger: silentLogger,
    ...(store ? { sharedHistory: store.history } : {}),
  });
  host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    retryDelayMs: 20,
    channels: [{ name: "mem", source: "memory", definition: channel.definition, options: {}, access }],
    ...(store ? { store, leaseMs: given.leaseMs ?? 2000 } : {}),
  });
  await host.start();
};
const stop = async () => {
  await runtime.close();
  await host.close();
  await store?.close();
};
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-host-"));
  channel = memoryChannel();
});
afterEach(async () => {
  await stop().catch(() => {});
  await rm(root, { recursive: true, force: true });
});

describe.each([
  { mode: "files", useStore: false },
  { mode: "a shared store", useStore: true },
])("createChannelHost on $mode", ({ useStore }) => {
  beforeEach(() => {
    shared = useStore;
  });

  it("splits long replies to the adapter's length, each chunk with its own derived key", async () => {
    scripted = createScriptedModel(["first paragraph\n\nsecond part here"]);
    await start();
    expect(await channel.deliver({ eventId: "e1", chatId: "c1", userId: "u1", text: "hi" })).toBe("accepted");
    await until(() => channel.sent.length === 2, "two chunks");
    expect(channel.sent.map((sent) => [sent.text, sent.key])).toEqual([
      ["first paragraph", "mem:e1:0:0.0"],
      ["second part here", "mem:e1:0:0.1"],
    ]);
    expect(channel.sent[0]?.target).toMatchObject({ chatId: "c1", replyToMessageId: "e1" });
  });

  it("retries a failing run and dead-letters it after 3 failures; inbox retry runs it again", async () => {
    scripted = createScriptedModel([
      new Error("boom 1"),
      new Error("boom 2"),
      new Error("boom 3"),
      "at last",
    ]);
    await start();
    await channel.deliver({ eventId: "e2", chatId: "c2", userId: "u1", text: "try" });
    await until(async () => (await host.inbox.list({ dead: true })).length === 1, "the dead letter");
    expect((await host.inbox.list({ dead: true }))[0]).toMatchObject({
      id: "mem:e2",
      attempts: 3,
      lastError: expect.stringContaining("boom 3"),
    });
    expect(host.status()[0]?.counts.deadLettered).toBe(1);
    // The notice is recorded just after the event is marked dead; an operator retries once it is out
    // (retried sooner, the answer may be queued between the notice's chunks: both keep record order).
    await until(
      () => /in the log\)\.$/.test(channel.sent.map((sent) => sent.text).join(" ")),
      "the whole failure notice",
    );
    const inbox = createChannelServices(host).find((service) => service.name === "inbox");
    await inbox?.actions.retry?.handler({ id: "mem:e2" }, { logger: silentLogger });
    // The chat was told once that its message could not be answered, then gets the answer.
    await until(
      () => channel.sent.at(-1)?.text === "at last",
      "the failure notice, then the reply after retry",
    );
    const notice = channel.sent.slice(0, -1);
    expect(notice.map((sent) => sent.text).join(" ")).toMatch(/^Sorry, I could not answer this message/);
    expect(notice.every((sent) => sent.key.startsWith("mem:e2#failed"))).toBe(true);
    await until(async () => (await host.inbox.list()).length === 0 || undefined, "the entry to finish");
  });

  it("replays an event whose run never finished, after a restart, without a second user message", async () => {
    const held = gate();
    scripted = createScriptedModel([async () => held.passed.then(() => new Error("cut off by the crash"))]);
    await start();
    await channel.deliver({ eventId: "e3", chatId: "c3", userId: "u1", text: "survive" });
    await until(() => scripted.calls.length === 1, "the first run to start");
    // A crash: the process goes away before the run ends (no done record is written).
    await host.close();
    await store?.close();
    held.open();
    await runtime.close().catch(() => {});
    scripted = createScriptedModel(["replayed answer"]);
    await start();
    await until(() => channel.sent.length === 1, "the replayed reply");
    expect(channel.sent[0]?.text).toBe("replayed answer");
    const users = (await runtime.history("mem:c3").read()).filter((message) => message.role === "user");
    expect(users).toHaveLength(1);
    expect(await channel.deliver({ eventId: "e3", chatId: "c3", userId: "u1", text: "survive" })).toBe(
      "duplicate",
    );
  });

  it("retries a send after a 429 for at least retry-after, and dead-letters a permanent failure", async () => {
    scripted = createScriptedModel(["one", "two"]);
    await start();
    channel.failures.push(new ChannelSendError("slow down", { retryAfterMs: 150, status: 429 }));
    const started = Date.now();
    await channel.deliver({ eventId: "e4", chatId: "c4", userId: "u1", text: "a" });
    await until(() => channel.sent.length === 1, "the retried send");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    channel.failures.push(new ChannelSendError("chat not found", { permanent: true, status: 400 }));
    await channel.deliver({ eventId: "e5", chatId: "gone", userId: "u1", text: "b" });
    await until(async () => (await host.outbox.list({ dead: true })).length === 1, "the dead outbox entry");
    expect((await host.outbox.list({ dead: true }))[0]).toMatchObject({
      key: "mem:e5:0:0",
      lastError: "chat not found",
    });
    expect(host.status()[0]?.counts).toMatchObject({ sent: 1, retried: 1, deadLettered: 1 });
  });

  it("lets chat_send reach a contact by @username, and records contacts from accepted events", async () => {
    scripted = createScriptedModel([
      "hello ada",
      { toolCalls: [{ toolName: "chat_send", input: { text: "ping from bob", to: "@Ada" } }] },
      "told her",
    ]);
    await start();
    await channel.deliver({ eventId: "e6", chatId: "ada-dm", userId: "ada-id", username: "ada", text: "hi" });
    await until(() => channel.sent.length === 1, "ada's reply");
    await channel.deliver({
      eventId: "e7",
      chatId: "bob-dm",
      userId: "bob-id",
      username: "bob",
      text: "tell ada",
    });
    await until(() => channel.sent.length === 3, "the message to ada and bob's reply");
    expect(channel.sent.slice(1).map((sent) => [sent.target.chatId, sent.text])).toEqual([
      ["ada-dm", "ping from bob"],
      ["bob-dm", "told her"],
    ]);
    const contacts = JSON.parse(await readFile(join(root, ".downcity", "contacts.json"), "utf8"));
    expect(contacts.map((contact: { id: string }) => contact.id).sort()).toEqual([
      "mem:ada-id",
      "mem:bob-id",
    ]);
  });

  it("pairing: one code per stranger, approved through the access service (told, first message answered), never for groups", async () => {
    scripted = createScriptedModel(["answer to hi", "welcome"]);
    await start({});
    expect(await channel.deliver({ eventId: "p1", chatId: "s-dm", userId: "s", text: "hi" })).toBe("denied");
    expect(await channel.deliver({ eventId: "p2", chatId: "s-dm", userId: "s", text: "hi?" })).toBe("denied");
    // The reply is longer than this adapter's 20 characters, so it arrives in chunks; chunks to
    // different chats may interleave, so each chat's text is read on its own.
    const all = () =>
      channel.sent
        .filter((sent) => sent.target.chatId === "s-dm")
        .map((sent) => sent.text)
        .join(" ");
    await until(() => /approve ([A-Z2-9]{8})/.test(all()) && /expires/.test(all()), "the pairing reply");
    const code = /approve ([A-Z2-9]{8})/.exec(all())?.[1] as string;
    const access = createChannelServices(host).find((service) => service.name === "access");
    // A second stranger's request is denied: the code stops working.
    expect(await channel.deliver({ eventId: "p9", chatId: "x-dm", userId: "x", text: "me too" })).toBe(
      "denied",
    );
    const pending = host.access("mem").pairing.listPending();
    const other = pending.find((entry) => entry.userId === "x")?.code as string;
    expect(await access?.actions.deny?.handler({ code: other }, { logger: silentLogger })).toMatchObject({
      userId: "x",
    });
    await expect(
      access?.actions.approve?.handler({ code: other }, { logger: silentLogger }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(
      access?.actions.approve?.handler({ code: "NOPE1234" }, { logger: silentLogger }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect(
      await access?.actions.approve?.handler({ code: code.toLowerCase() }, { logger: silentLogger }),
    ).toMatchObject({
      channel: "mem",
      userId: "s",
      via: "pairing",
      answered: true,
    });
    // Told they are in, then the message that asked (kept since) is answered; the later one was not kept.
    await until(() => channel.sent.at(-1)?.text === "answer to hi", "the held message's answer");
    expect(all()).toContain("You're in: the owner approved you.");
    expect(scripted.calls[0]?.messages.at(-1)?.text).toBe("hi");
    expect(channel.sent.at(-1)?.target).toMatchObject({ chatId: "s-dm", replyToMessageId: "p1" });
    expect(await channel.deliver({ eventId: "p3", chatId: "s-dm", userId: "s", text: "in?" })).toBe(
      "accepted",
    );
    await until(() => channel.sent.at(-1)?.text === "welcome", "the answer");
    expect(scripted.calls).toHaveLength(2);
  });
});

describe("createChannelHost with several workers: claims", () => {
  it("renews its claim while a run outlives the lease, so no other worker takes the event", async () => {
    channel = memoryChannel();
    const slow = gate();
    scripted = createScriptedModel([async () => slow.passed.then(() => "done at last")]);
    const files = await openFileStore({ rootDir: root });
    await start(undefined, { store: files, leaseMs: 300 });
    await channel.deliver({ eventId: "long", chatId: "c1", userId: "u1", text: "take your time" });
    await until(() => scripted.calls.length === 1, "the run to start");
    const started = Date.now();
    while (Date.now() - started < 1200) {
      expect(await files.inbox.claim({ owner: "another-worker", leaseMs: 300 })).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    slow.open();
    await until(() => channel.sent.length === 1, "the reply");
    await until(async () => (await host.inbox.list()).length === 0 || undefined, "the event to complete");
    expect(scripted.calls).toHaveLength(1);
  });
});

describe("createChannelHost with several workers: a polling channel", () => {
  it("polls only once elected, sends replies while standing by, and stops polling when the lock is lost", async () => {
    channel = memoryChannel({ polls: true });
    scripted = createScriptedModel(["from standby", "from the poller"]);
    const files = await openFileStore({ rootDir: root });
    const lock: string[] = [];
    let grant: () => void = () => {};
    let lose: () => void = () => {};
    const lost = new Promise<void>((resolve) => {
      lose = resolve;
    });
    store = {
      ...files,
      pollerLock: (name) =>
        new Promise((resolve) => {
          lock.push(`wait ${name}`);
          grant = () =>
            resolve({
              lost,
              release: async () => {
                lock.push("release");
              },
            });
        }),
    };
    await start(undefined, { store });
    expect(host.status()[0]?.state).toBe("standby");
    expect(lock).toEqual(["wait mem"]);
    expect(channel.calls).toEqual([]);
    await host.submit({
      channel: "mem",
      contextId: "mem:c1",
      message: { text: "hi", chatId: "c1", chatType: "direct", userId: "u1" },
    });
    await until(() => channel.sent.length === 1, "the reply sent by a standing-by worker");
    grant();
    await until(() => host.status()[0]?.state === "connected", "the elected poller");
    expect(channel.calls).toEqual(["start"]);
    expect(await channel.deliver({ eventId: "e1", chatId: "c2", userId: "u2", text: "polled" })).toBe(
      "accepted",
    );
    await until(() => channel.sent.length === 2, "the reply to a polled event");
    lose();
    await until(() => host.status()[0]?.state === "failed", "the poller to stop");
    expect(channel.calls).toEqual(["start", "stop"]);
    expect(host.status()[0]?.error).toContain("another worker polls");
    await runtime.close();
    await host.close();
    expect(lock).toEqual(["wait mem", "release"]);
    await files.close();
    store = undefined;
  });
});

describe("createChannelHost on the default store", () => {
  it("hands a context's message that arrives mid-run to that run, which sees it at its next step", async () => {
    channel = memoryChannel();
    const toolStarted = gate();
    const blocker = gate();
    scripted = createScriptedModel([
      { toolCalls: [{ toolName: "slow", input: {} }] },
      (call) =>
        call.messages.some((m) => m.role === "user" && m.text === "also blue") ? "saw it" : "missed it",
    ]);
    runtime = createAgentRuntime({
      rootDir: root,
      model: scripted.model,
      logger: silentLogger,
      tools: {
        slow: tool({
          inputSchema: z.object({}),
          execute: async () => {
            toolStarted.open();
            await blocker.passed;
            return "done";
          },
        }),
      },
    });
    const queued: string[] = [];
    runtime.on((event) => {
      if (event.type === "message-queued" && event.messageId) queued.push(event.messageId);
    });
    host = await createChannelHost({
      rootDir: root,
      runtime,
      logger: silentLogger,
      channels: [
        {
          name: "mem",
          source: "memory",
          definition: channel.definition,
          options: {},
          access: { dm: "open" },
        },
      ],
    });
    await host.start();
    await channel.deliver({ eventId: "j1", chatId: "c1", userId: "u1", text: "paint the fence" });
    await toolStarted.passed;
    await channel.deliver({ eventId: "j2", chatId: "c1", userId: "u1", text: "also blue" });
    // The file store hands the second event out while the first run holds the context.
    await until(() => queued.includes("mem:j2"), "the second event to reach the runtime");
    blocker.open();
    await until(() => channel.sent.length === 1, "the one reply");
    expect(channel.sent[0]?.text).toBe("saw it");
    expect(scripted.calls).toHaveLength(2);
    await until(async () => (await host.inbox.list()).length === 0 || undefined, "both events to complete");
  });
});
