import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { signWebhookBody } from "@downcity/adapters-webhook";
import { type ScriptedCall, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { tasksPlugin } from "@downcity/tasks";
import { freePort, startSignedReceiver, until } from "@downcity/testkit";
import { afterEach, expect, it } from "vitest";
import { createDaemonClient, ensureToken, initProject, runDaemon } from "../src/index.js";
import { writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

const secret = "task-notice-webhook-0123456789abcdef";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** Answers a task run with its result, a task's notice with a line for the chat, anything else with hello. */
function respond(call: ScriptedCall): string {
  const last = call.messages.at(-1)?.text ?? "";
  if (last.includes("[Task run]")) return "the report is ready";
  const notice = /Task "Report" \(report\) finished \(manual run (\S+)\)/.exec(last);
  if (notice) return `Your report (${notice[1]}) is ready.`;
  return "Hello.";
}

it("a task's result reaches its chat as a task-notice inbox event, answered once on the platform", async () => {
  const world = await createTempWorld("dc-task-notice-");
  cleanups.push(world.cleanup);
  const receiver = await startSignedReceiver<{ chatId: string; text: string; idempotencyKey: string }>({
    secret,
  });
  cleanups.push(receiver.close);
  const model = await startOpenAICompatibleServer({ respond });
  cleanups.push(() => model.close());
  const rootDir = world.project();
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
  });
  const listenPort = await freePort();
  await writeWebhookChannel(rootDir, { port: listenPort, url: receiver.url, secret, access: { dm: "open" } });
  // The daemon in this process with the tasks plug-in only.
  const daemon = await runDaemon({ rootDir, env: world.env, handleSignals: false, plugins: [tasksPlugin] });
  cleanups.push(() => daemon.close());
  const client = createDaemonClient({
    host: daemon.host,
    port: daemon.port,
    token: await ensureToken(world.env),
  });

  const body = JSON.stringify({
    eventId: "e1",
    chatId: "chat-1",
    chatType: "direct",
    userId: "u1",
    text: "hi",
  });
  const accepted = await fetch(`http://127.0.0.1:${listenPort}/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-downcity-signature": signWebhookBody(secret, body) },
    body,
  });
  expect(accepted.status).toBe(202);
  await until(() => receiver.received.some((reply) => reply.text === "Hello."), "the answer to hi");

  await client.servicesCommand({
    service: "task",
    action: "create",
    payload: { id: "report", title: "Report", when: "@manual", notify: "hook:chat-1", body: "Write it." },
  });
  const run = (
    await client.servicesCommand({ service: "task", action: "run", payload: { id: "report", wait: true } })
  ).result as { runId: string; status: string };
  expect(run.status).toBe("succeeded");
  const text = `Your report (${run.runId}) is ready.`;
  await until(() => receiver.received.some((reply) => reply.text === text), "the notice answered in chat-1");
  const notices = receiver.received.filter((reply) => reply.text === text);
  expect(new Set(notices.map((reply) => reply.idempotencyKey)).size).toBe(1);
  expect(notices[0]?.chatId).toBe("chat-1");
  // The notice went through the inbox as the internal event task-notice:<task>:<run> of the chat.
  const inbox = await readFile(join(rootDir, ".downcity", "channels", "inbox.jsonl"), "utf8");
  expect(inbox).toContain(`task-notice:report:${run.runId}`);
  expect(inbox).toContain('"channel":"internal"');
});
