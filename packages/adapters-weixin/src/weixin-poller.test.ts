import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createRecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, test } from "vitest";
import {
  type FakeWeixinPlatform,
  fakeWeixinToken,
  startFakeWeixinPlatform,
} from "./test/fake-weixin-platform.js";
import { createWeixinAdapter } from "./weixin-adapter.js";
import { writeWeixinCredentials } from "./weixin-credentials.js";

describe("weixin poller", () => {
  let fake: FakeWeixinPlatform;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await fake?.close();
  });
  const started = async (options: Record<string, unknown>, stateDir?: string) => {
    const adapter = createWeixinAdapter({
      baseUrl: fake.baseUrl,
      cdnBaseUrl: fake.cdnBaseUrl,
      reconnectDelayMs: 20,
      ...options,
    });
    const recording = await createRecordingContext({ channel: "wechat", ...(stateDir ? { stateDir } : {}) });
    await adapter.start(recording.context);
    cleanups.push(async () => {
      recording.abort();
      await adapter.stop();
      await recording.dispose();
    });
    return { adapter, recording };
  };

  test("the cursor moves only after a durable accept: a failed accept is fetched again, and saved after", async () => {
    fake = await startFakeWeixinPlatform({ holdMs: 200 });
    const { recording } = await started({ token: fakeWeixinToken });
    recording.failNext(1);
    const delivered = await fake.deliver({
      chatType: "direct",
      chatId: "wxid_a",
      userId: "wxid_a",
      text: "keep me",
    });
    expect(delivered.acked).toBe(true);
    // Two attempts: the failed one and the redelivery; one event accepted.
    expect(recording.attempts()).toBe(2);
    expect(recording.events.map((event) => event.text)).toEqual(["keep me"]);
    const saved = JSON.parse(await readFile(join(recording.context.stateDir, "weixin-cursor.json"), "utf8"));
    expect(saved.cursor).toBe(fake.polls().at(-1));
    expect(JSON.stringify(saved)).not.toContain(fakeWeixinToken);
  });

  test("a restart resumes from the saved cursor: nothing accepted before is fetched again", async () => {
    fake = await startFakeWeixinPlatform({ holdMs: 200 });
    const first = await started({ token: fakeWeixinToken });
    await fake.deliver({ chatType: "direct", chatId: "wxid_b", userId: "wxid_b", text: "one" });
    const stateDir = first.recording.context.stateDir;
    await first.adapter.stop();
    const second = await started({ token: fakeWeixinToken }, stateDir);
    await fake.deliver({ chatType: "direct", chatId: "wxid_b", userId: "wxid_b", text: "two" });
    expect(second.recording.events.map((event) => event.text)).toEqual(["two"]);
    expect(fake.polls().filter((cursor) => cursor === "")).toHaveLength(1);
  });

  test("without a binding, and after the token expires, the channel is failed with the re-binding advice; a new binding resumes it", async () => {
    fake = await startFakeWeixinPlatform({ holdMs: 200 });
    const { recording } = await started({});
    await recording.until(
      () =>
        recording.states.some(
          (state) => state.state === "failed" && /no WeChat bot is bound/.test(state.error ?? ""),
        ),
      "the unbound state",
    );
    expect(recording.states.at(-1)?.error).toContain("downcity channels login wechat");
    await writeWeixinCredentials(recording.context.stateDir, {
      botToken: fakeWeixinToken,
      boundAt: new Date().toISOString(),
    });
    await recording.until(
      () => recording.states.at(-1)?.state === "connected",
      "the binding picked up",
      15_000,
    );

    fake.expireToken();
    await recording.until(
      () => /token expired/.test(recording.states.at(-1)?.error ?? ""),
      "the expired state",
      15_000,
    );
    expect(recording.states.at(-1)?.state).toBe("failed");
    const renewed = "renewedtoken-0123456789abcdef@im.bot";
    fake.acceptToken(renewed);
    await writeWeixinCredentials(recording.context.stateDir, {
      botToken: renewed,
      boundAt: new Date().toISOString(),
    });
    await recording.until(() => recording.states.at(-1)?.state === "connected", "the new binding", 15_000);
    const delivered = await fake.deliver({
      chatType: "direct",
      chatId: "wxid_c",
      userId: "wxid_c",
      text: "back",
    });
    expect(delivered.acked).toBe(true);
    expect(recording.events.map((event) => event.text)).toContain("back");
    expect(JSON.stringify(recording.logs)).not.toContain(renewed);
  }, 60_000);
});
