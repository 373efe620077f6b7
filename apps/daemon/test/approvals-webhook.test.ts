import { existsSync } from "node:fs";
import { join } from "node:path";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, signBody, startSignedReceiver, until } from "@downcity/testkit";
import { afterAll, describe, expect, inject, it } from "vitest";
import { daemonStatus, initProject, startDaemonDetached, stopDaemon } from "../src/index.js";
import { installWebhookAdapter, writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

const secret = "approvals-secret-0123456789abcdef";
const sign = (body: string) => signBody(secret, body);

/** The chat, as the bridge behind the webhook channel sees it: every reply the agent sends, its signature checked. */
async function startChat() {
  const receiver = await startSignedReceiver<{ text: string }>({ secret });
  return {
    get texts() {
      return receiver.received.map((reply) => reply.text);
    },
    url: receiver.url,
    close: receiver.close,
  };
}

describe("approvals through the webhook channel (mode ask)", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("asks, runs once, asks again, remembers always by prefix, denies, times out, survives SIGKILL", async () => {
    const world = await createTempWorld("dc-approvals-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    const chat = await startChat();
    cleanups.push(chat.close);
    // The model runs the command a user message names, and reports what the tool answered.
    const model = await startOpenAICompatibleServer({
      respond: (call) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool") return `tool said: ${last.text}`;
        const command = /^run: (.+)$/m.exec(last?.text ?? "")?.[1];
        return command ? { toolCalls: [{ toolName: "shell_exec", input: { command } }] } : "ok";
      },
    });
    cleanups.push(() => model.close());
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 1000 }));
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const port = await freePort();
    await writeWebhookChannel(
      rootDir,
      { port, url: chat.url, secret, access: { dm: "open" } },
      { approvals: { mode: "ask", approvers: ["hook:boss"], timeoutMs: 60_000 } },
    );
    await installWebhookAdapter(rootDir);
    const entry = inject("daemonEntry");
    let daemon = await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });

    let eventNumber = 0;
    const say = async (text: string) => {
      const body = JSON.stringify({
        eventId: `e${++eventNumber}`,
        chatId: "chat-1",
        chatType: "direct",
        userId: "boss",
        text,
      });
      await until(
        async () =>
          (
            await fetch(`http://127.0.0.1:${port}/events`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-downcity-signature": sign(body) },
              body,
            }).catch(() => undefined)
          )?.ok === true,
        `event ${eventNumber} accepted`,
      );
    };
    const requests = () => chat.texts.filter((text) => text.startsWith("Approval needed"));
    const nextRequest = async (count: number) => {
      await until(() => requests().length === count, `approval request #${count}`);
      return /\(([A-Z0-9]{4,6})\)/.exec(requests()[count - 1] as string)?.[1] as string;
    };
    const marker = (name: string) => join(rootDir, name);

    // 1. The command waits; nothing runs until /approve, which runs it once.
    await say("run: touch marker");
    const first = await nextRequest(1);
    expect(requests()[0]).toContain("touch marker");
    expect(existsSync(marker("marker"))).toBe(false);
    await say(`/approve ${first.toLowerCase()}`);
    await until(() => existsSync(marker("marker")), "marker created");
    await until(() => chat.texts.some((text) => text.startsWith("tool said:")), "the model's answer");

    // 2. The same call asks again; "always" then covers other arguments under the prefix.
    await say("run: touch marker");
    const second = await nextRequest(2);
    expect(second).not.toBe(first);
    await say(`/approve ${second} always`);
    await until(
      () => chat.texts.some((text) => text.includes("`touch *` will run without asking")),
      "always stored",
    );
    await say("run: touch other-marker");
    await until(() => existsSync(marker("other-marker")), "other-marker created without asking");
    expect(requests()).toHaveLength(2);

    // 3. /deny: nothing runs and the model is told.
    await say("run: mkdir denied-dir");
    const third = await nextRequest(3);
    await say(`/deny ${third}`);
    await until(
      () => chat.texts.some((text) => /tool said:.*an approver denied.*mkdir denied-dir/s.test(text)),
      "the denial",
    );
    expect(existsSync(marker("denied-dir"))).toBe(false);

    // 4. SIGKILL while a request is pending; after a restart /approve runs the command once.
    await say("run: mkdir after-restart");
    const fourth = await nextRequest(4);
    process.kill(daemon.pid, "SIGKILL");
    await until(async () => !(await daemonStatus({ rootDir })).running, "daemon gone");
    // The restarted daemon gets a short timeout for the last step; the pending request keeps its own.
    await writeWebhookChannel(
      rootDir,
      { port, url: chat.url, secret, access: { dm: "open" } },
      { approvals: { mode: "ask", approvers: ["hook:boss"], timeoutMs: 4000 } },
    );
    daemon = await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });
    expect(existsSync(marker("after-restart"))).toBe(false);
    await say(`/approve ${fourth}`);
    await until(() => existsSync(marker("after-restart")), "after-restart created");
    await say(`/approve ${fourth}`);
    await until(() => chat.texts.some((text) => text.includes(`${fourth} is already settled`)), "settled");

    // 5. An unknown code gets an answer; a timeout denies and tells the chat.
    await say("/approve QQQQ");
    await until(
      () => chat.texts.some((text) => text.includes("No pending approval has the code QQQQ")),
      "unknown",
    );
    await say("run: mkdir late-dir");
    await nextRequest(5);
    await until(() => chat.texts.some((text) => text.startsWith("No answer in time")), "the timeout notice", {
      timeoutMs: 20_000,
    });
    expect(existsSync(marker("late-dir"))).toBe(false);
  }, 180_000);
});
