import { setTimeout as sleep } from "node:timers/promises";
import { startOpenAICompatibleServer } from "@downcity/core/test";
import { afterAll, describe, expect, inject, it } from "vitest";
import { demoReply } from "../src/demo/start-demo-model.js";
import {
  createDaemonClient,
  daemonStatus,
  initProject,
  readToken,
  startDaemonDetached,
  stopDaemon,
} from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

describe("SIGKILL while messages are sent, then restart", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("keeps every acknowledged message and delivers the shell follow-up exactly once", async () => {
    const world = await createTempWorld("dc-crash-");
    cleanups.push(world.cleanup);
    const model = await startOpenAICompatibleServer({
      respond: (call) => {
        const last = call.messages.at(-1)?.text ?? "";
        if (/background|\[shell-exit\]/.test(last) || call.messages.at(-1)?.role === "tool")
          return demoReply(call);
        return { text: "noted, thanks", chunkSize: 3, delayMs: 5 };
      },
    });
    cleanups.push(() => model.close());
    const rootDir = world.project();
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 1000 }).then(() => {}));
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const entry = inject("daemonEntry");
    const first = await startDaemonDetached({ rootDir, env: world.env, entry });
    const token = (await readToken(world.env)) as string;
    const client = createDaemonClient({ host: first.host, port: first.port, token });

    const started = await client.chatSend({ text: "start a background job" });
    expect(started.text).toContain("background job");

    // Six senders keep sending, each on its own context, until the daemon dies under them; the kill
    // comes after a few acknowledgments (not after a fixed delay, which a loaded machine outruns).
    const acknowledged: Array<{ contextId: string; text: string }> = [];
    const failed: string[] = [];
    let sequence = 0;
    const sender = async (lane: number) => {
      const contextId = `console:crash-${lane}`;
      for (;;) {
        const index = sequence++;
        const text = `message number ${index}`;
        try {
          await client.chatSend({ contextId, text, messageId: `m-${index}` });
          acknowledged.push({ contextId, text });
        } catch (error) {
          failed.push((error as Error).message);
          return;
        }
      }
    };
    const sends = Array.from({ length: 6 }, (_, lane) => sender(lane));
    const killDeadline = Date.now() + 15000;
    while (acknowledged.length < 6 && Date.now() < killDeadline) await sleep(5);
    process.kill(first.pid, "SIGKILL");
    await Promise.all(sends);
    expect(acknowledged.length).toBeGreaterThanOrEqual(6);
    expect(failed.length).toBeGreaterThan(0);

    // SIGKILL is delivered asynchronously: the dying process can still be listed for a moment.
    let afterKill = await daemonStatus({ rootDir });
    const goneDeadline = Date.now() + 5000;
    while (afterKill.running && Date.now() < goneDeadline) {
      await sleep(10);
      afterKill = await daemonStatus({ rootDir });
    }
    expect(afterKill).toMatchObject({ running: false, staleCleaned: true, pid: first.pid });

    const second = await startDaemonDetached({ rootDir, env: world.env, entry });
    const again = createDaemonClient({ host: second.host, port: second.port, token });
    for (const { contextId, text } of acknowledged) {
      const { messages } = await again.chatHistory({ contextId, last: 1000 });
      const texts = messages.map((message) =>
        message.parts.map((part) => (part.type === "text" ? part.text : "")).join(""),
      );
      expect(texts, `${contextId}: ${text}`).toContain(text);
    }

    const followUps = async () =>
      (await again.chatHistory({ contextId: "console:main", last: 1000 })).messages.filter(
        (message) => message.metadata?.origin === "internal",
      );
    const deadline = Date.now() + 15000;
    while ((await followUps()).length === 0 && Date.now() < deadline) await sleep(100);
    const notices = await followUps();
    expect(notices).toHaveLength(1);
    expect(JSON.stringify(notices[0]?.parts)).toContain("[shell-exit]");

    await stopDaemon({ rootDir, graceMs: 5000 });
    const third = await startDaemonDetached({ rootDir, env: world.env, entry });
    const last = createDaemonClient({ host: third.host, port: third.port, token });
    await sleep(500);
    const { messages } = await last.chatHistory({ contextId: "console:main", last: 1000 });
    expect(messages.filter((message) => message.metadata?.origin === "internal")).toHaveLength(1);
    await stopDaemon({ rootDir, graceMs: 5000 });
  }, 60000);
});
