import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime } from "../agent/agent-runtime.js";
import type {
  ChannelAdapterDefinition,
  ChannelCapabilities,
  ChannelInbox,
} from "../channel/adapter/channel-adapter.js";
import type { ChannelEvent } from "../channel/adapter/channel-event.js";
import {
  type ChannelHost,
  type ChannelHostOptions,
  createChannelHost,
} from "../channel/host/channel-host.js";
import type { HistoryMessage } from "../history/history-message.js";
import { messageText } from "../history/history-message.js";
import { silentLogger } from "../logger/logger.js";
import { testTypingAndEditing } from "./channel-conformance-liveness.js";
import type { ChannelFake } from "./channel-fake.js";
import { mediaConformanceCases } from "./channel-media-conformance.js";
import { createScriptedModel, type ScriptedModel } from "./scripted-model.js";

/** Options of `testChannelAdapter`. */
export interface TestChannelAdapterOptions<Fake extends ChannelFake = ChannelFake> {
  /** The adapter's name in test titles. */
  name: string;
  createFake(): Promise<Fake>;
  /** The adapter definition and the instance options pointing it at `fake`. */
  createAdapter(fake: Fake): { definition: ChannelAdapterDefinition; options: Record<string, unknown> };
  /** Capabilities the adapter must declare (checked as a subset). */
  capabilities?: Partial<ChannelCapabilities>;
  /** Limit of one wait in the suite [15 s]. */
  timeoutMs?: number;
}

async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const resourceKinds = (): string[] =>
  process.getActiveResourcesInfo().filter((kind) => kind !== "TTYWrap" && kind !== "FSReqCallback");

/**
 * The channel conformance suite: registers vitest tests proving an adapter keeps the delivery
 * contract (mapping, stable context ids, default deny, ack after durable accept, dedupe of
 * redeliveries, outbound idempotency and 429, idempotent start/stop without leaks, per-context FIFO)
 * against the adapter's own fake platform, with the real channel host and a scripted model.
 */
export function testChannelAdapter<Fake extends ChannelFake>(options: TestChannelAdapterOptions<Fake>): void {
  const timeoutMs = options.timeoutMs ?? 15000;
  const channel = "conf";

  describe(`${options.name}: channel conformance`, () => {
    let root: string;
    let fake: Fake;
    let scripted: ScriptedModel;
    let runtime: AgentRuntime;
    let host: ChannelHost;
    let intercept: ((inner: ChannelInbox) => ChannelInbox) | undefined;

    const startHost = async (
      access: Record<string, unknown> = { dm: "open", groups: "open" },
      extra: Partial<Pick<ChannelHostOptions, "media">> = {},
    ) => {
      const { definition, options: adapterOptions } = options.createAdapter(fake);
      runtime = createAgentRuntime({ rootDir: root, model: scripted.model, logger: silentLogger });
      host = await createChannelHost({
        rootDir: root,
        runtime,
        logger: silentLogger,
        retryDelayMs: 100,
        channels: [{ name: channel, source: options.name, definition, options: adapterOptions, access }],
        interceptInbox: (_name, inner) => (intercept ? intercept(inner) : inner),
        ...extra,
      });
      await host.start();
      const state = host.status()[0];
      if (state?.state === "failed") throw new Error(`the adapter failed to start: ${state.error}`);
    };
    const stopHost = async () => {
      await runtime.close();
      await host.close();
    };
    const userTexts = async (contextId: string): Promise<string[]> =>
      (await runtime.history(contextId).read())
        .filter((message: HistoryMessage) => message.role === "user")
        .map((message) => messageText(message));

    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), "downcity-conformance-"));
      fake = await options.createFake();
      scripted = createScriptedModel([], {
        // Echoes the user's words: a group turn's speaker label ("[Ada]: ") is the runtime's, not theirs.
        fallback: (call) =>
          `echo: ${(call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "").replace(/^\[[^\]\n]*\]: /, "")}`,
      });
      intercept = undefined;
    });
    afterEach(async () => {
      await stopHost().catch(() => {});
      await fake.close();
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    });
    // A direct message from u1; with `eventId`, the platform's redelivery of an earlier one.
    const deliverDirect = (chatId: string, text: string, eventId?: string) =>
      fake.deliver({ chatType: "direct", chatId, userId: "u1", text, ...(eventId ? { eventId } : {}) });
    // Waits for the fake platform to have received a message in `chatId`, or with exactly `text`.
    const sentTo = (chatId: string, what: string) =>
      until(() => fake.sent().find((sent) => sent.chatId === chatId), what, timeoutMs);
    const sentText = (text: string, what: string) =>
      until(() => fake.sent().find((sent) => sent.text === text), what, timeoutMs);

    it("declares its capabilities", async () => {
      const { definition, options: adapterOptions } = options.createAdapter(fake);
      const adapter = definition.create(definition.options.parse(adapterOptions), {
        rootDir: root,
        logger: silentLogger,
      });
      expect(adapter.capabilities.maxTextLength).toBeGreaterThan(0);
      if (options.capabilities) expect(adapter.capabilities).toMatchObject(options.capabilities);
      runtime = createAgentRuntime({ rootDir: root });
      host = await createChannelHost({ rootDir: root, runtime, logger: silentLogger, channels: [] });
    });

    it("maps direct and group messages: mention stripped, thread kept, non-text ignored, replies in place", async () => {
      await startHost();
      expect(
        (
          await fake.deliver({
            chatType: "direct",
            chatId: "d1",
            userId: "u1",
            username: "ada",
            text: "hello there",
          })
        ).acked,
      ).toBe(true);
      await sentTo("d1", "the direct reply");
      expect(await userTexts(`${channel}:d1`)).toEqual(["hello there"]);
      expect(fake.sent().find((sent) => sent.chatId === "d1")?.text).toBe("echo: hello there");

      // A platform without threads (QQ) declares `threads: false`: its group message has none to keep.
      const threads = options.capabilities?.threads !== false;
      const group = await fake.deliver({
        chatType: "group",
        chatId: "g1",
        userId: "u2",
        text: "status please",
        mentionBot: true,
        ...(threads ? { threadId: "t7" } : {}),
      });
      expect(group.acked).toBe(true);
      await sentTo("g1", "the group reply");
      expect(await userTexts(threads ? `${channel}:g1:t7` : `${channel}:g1`)).toEqual(["status please"]);
      expect(fake.sent().find((sent) => sent.chatId === "g1")).toMatchObject({
        ...(threads ? { threadId: "t7" } : {}),
        text: "echo: status please",
      });

      if (fake.hasNonText === false) return;
      const before = scripted.calls.length;
      expect(
        (await fake.deliver({ chatType: "direct", chatId: "d1", userId: "u1", text: "", nonText: true }))
          .acked,
      ).toBe(true);
      // Nothing to wait for: the only observable is that no run started; a following message proves the lane moved on.
      await fake.deliver({ chatType: "direct", chatId: "d1", userId: "u1", text: "after the sticker" });
      await until(
        () => fake.sent().filter((sent) => sent.chatId === "d1").length === 2 || undefined,
        "the second reply",
        timeoutMs,
      );
      expect(scripted.calls.length).toBe(before + 1);
      expect(await userTexts(`${channel}:d1`)).toEqual(["hello there", "after the sticker"]);
    });

    it("keeps context ids stable across restarts", async () => {
      await startHost();
      await fake.deliver({ chatType: "direct", chatId: "d2", userId: "u1", text: "first life" });
      await sentText("echo: first life", "the first reply");
      await stopHost();
      await startHost();
      await fake.deliver({ chatType: "direct", chatId: "d2", userId: "u1", text: "second life" });
      await sentText("echo: second life", "the second reply");
      expect(await userTexts(`${channel}:d2`)).toEqual(["first life", "second life"]);
    });

    it("denies by default: a stranger's DM gets one pairing code and no model call; groups stay silent", async () => {
      await startHost({});
      expect(
        (await fake.deliver({ chatType: "direct", chatId: "d3", userId: "stranger", text: "let me in" }))
          .acked,
      ).toBe(true);
      const pairing = await sentTo("d3", "the pairing reply");
      expect(pairing.text).toMatch(/downcity access approve [A-Z2-9]{8}/);
      await fake.deliver({ chatType: "direct", chatId: "d3", userId: "stranger", text: "again" });
      await fake.deliver({ chatType: "group", chatId: "g3", userId: "u9", text: "hi all", mentionBot: true });
      // Denial is decided before the acknowledgement, so both were handled by now.
      expect(scripted.calls).toHaveLength(0);
      expect(fake.sent().filter((sent) => sent.chatId === "d3")).toHaveLength(1);
      expect(fake.sent().filter((sent) => sent.chatId === "g3")).toHaveLength(0);
      expect(await userTexts(`${channel}:d3`)).toEqual([]);
    });

    it("acknowledges only after a durable accept: a store failure is redelivered and processed once", async () => {
      let failures = 1;
      intercept = (inner) => ({
        accept: async (event) => {
          if (failures > 0) {
            failures -= 1;
            throw new Error("disk full (injected)");
          }
          return inner.accept(event);
        },
      });
      await startHost();
      const first = await deliverDirect("d4", "survive this");
      // The platform redelivers what was not acknowledged; the fake reports whether it got the ack.
      if (!first.acked) await deliverDirect("d4", "survive this", first.eventId);
      await sentTo("d4", "the reply");
      expect(await userTexts(`${channel}:d4`)).toEqual(["survive this"]);
    });

    it("dedupes a redelivery of an event accepted before a crash (kill between accept and ack)", async () => {
      let killAfterAccept = true;
      intercept = (inner) => ({
        accept: async (event) => {
          const result = await inner.accept(event);
          if (killAfterAccept) {
            killAfterAccept = false;
            // Durable, but the process "dies" before the adapter acknowledges.
            throw new Error("killed after accept (injected)");
          }
          return result;
        },
      });
      await startHost();
      const first = await deliverDirect("d5", "exactly once");
      await deliverDirect("d5", "exactly once", first.eventId);
      await sentTo("d5", "the reply");
      await stopHost();
      await startHost();
      await fake.deliver({
        chatType: "direct",
        chatId: "d5",
        userId: "u1",
        text: "exactly once",
        eventId: first.eventId,
      });
      await fake.deliver({ chatType: "direct", chatId: "d5", userId: "u1", text: "next" });
      await sentText("echo: next", "the next reply");
      expect(await userTexts(`${channel}:d5`)).toEqual(["exactly once", "next"]);
      expect(fake.sent().filter((sent) => sent.text === "echo: exactly once")).toHaveLength(1);
    });

    it("sends with idempotency keys and waits out a 429", async () => {
      await startHost();
      fake.rateLimitNextSends(1, 300);
      const started = Date.now();
      await fake.deliver({ chatType: "direct", chatId: "d6", userId: "u1", text: "slow down" });
      await sentTo("d6", "the reply after the 429");
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(fake.sent().filter((sent) => sent.chatId === "d6")).toHaveLength(1);
      const { definition, options: adapterOptions } = options.createAdapter(fake);
      const adapter = definition.create(definition.options.parse(adapterOptions), {
        rootDir: root,
        logger: silentLogger,
      });
      if (adapter.capabilities.idempotentSends) {
        const target = { chatId: "d6b", chatType: "direct" as const };
        await adapter.send(target, { text: "once" }, { idempotencyKey: "conf-key-1" });
        await adapter.send(target, { text: "once" }, { idempotencyKey: "conf-key-1" });
        const delivered = fake.sent().filter((sent) => sent.chatId === "d6b");
        expect(new Set(delivered.map((sent) => sent.idempotencyKey))).toEqual(new Set(["conf-key-1"]));
      }
      await adapter.stop();
    });

    it("starts and stops idempotently, and leaves no handle open", async () => {
      const baseline = resourceKinds().length;
      const { definition, options: adapterOptions } = options.createAdapter(fake);
      const adapter = definition.create(definition.options.parse(adapterOptions), {
        rootDir: root,
        logger: silentLogger,
      });
      const abort = new AbortController();
      const accepted: string[] = [];
      const context = {
        channel,
        inbox: {
          accept: async (event: ChannelEvent) => {
            accepted.push(event.text);
            return "accepted" as const;
          },
        },
        logger: silentLogger,
        signal: abort.signal,
        stateDir: root,
        setState: () => {},
      };
      await adapter.start(context);
      await adapter.start(context);
      await fake.deliver({ chatType: "direct", chatId: "d7", userId: "u1", text: "while running" });
      expect(accepted).toEqual(["while running"]);
      abort.abort();
      await adapter.stop();
      await adapter.stop();
      await until(
        () => resourceKinds().length <= baseline || undefined,
        "the adapter's handles to close",
        timeoutMs,
      );
      runtime = createAgentRuntime({ rootDir: root });
      host = await createChannelHost({ rootDir: root, runtime, logger: silentLogger, channels: [] });
    });

    it("keeps per-context order", async () => {
      await startHost();
      const texts = ["one", "two", "three", "four", "five"];
      for (const text of texts) await fake.deliver({ chatType: "direct", chatId: "d8", userId: "u1", text });
      await until(
        async () => (await userTexts(`${channel}:d8`)).length === texts.length || undefined,
        "all five messages",
        timeoutMs,
      );
      expect(await userTexts(`${channel}:d8`)).toEqual(texts);
    });

    testTypingAndEditing({
      fake: () => fake,
      root: () => root,
      createAdapter: options.createAdapter,
      timeoutMs,
    });

    // Media and formatting, gated by the capabilities the adapter declares.
    mediaConformanceCases({
      channel,
      timeoutMs,
      root: () => root,
      fake: () => fake,
      scripted: () => scripted,
      runtime: () => runtime,
      startHost: (extra) => startHost(undefined, extra),
      capabilities: () => {
        const { definition, options: adapterOptions } = options.createAdapter(fake);
        return definition.create(definition.options.parse(adapterOptions), {
          rootDir: root,
          logger: silentLogger,
        }).capabilities;
      },
      until: (check, what) => until(check, what, timeoutMs),
    });
  });
}
