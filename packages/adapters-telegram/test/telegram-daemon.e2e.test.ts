import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/test";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FakeTelegramServer, startFakeTelegramServer } from "../src/test/fake-telegram-server.js";
import { type CliRun, ensureBuiltCli, runCli } from "./built-cli.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and
// long-polls a fake Bot API server; the model is a scripted OpenAI-compatible server.

const groupId = -1001234567890;

async function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("telegram through the daemon: pairing, approval, groups and topics, a crash between accept and reply", () => {
  let cliMain: string;
  let home: string;
  let project: string;
  let fake: FakeTelegramServer;
  let model: OpenAICompatibleServer;
  let releaseSlow: (() => void) | undefined;
  const userTexts = () =>
    model.calls.map((call) => call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "");
  const cli = (args: string[]) => runCli(cliMain, args, { cwd: project, env: { DOWNCITY_HOME: home } });
  const ok = (run: CliRun) => {
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  const sentTo = (chatId: number | string, text: string | RegExp) =>
    fake
      .sent()
      .filter(
        (message) =>
          message.chat_id === String(chatId) &&
          (typeof text === "string" ? message.text === text : text.test(message.text)),
      );

  beforeAll(async () => {
    cliMain = ensureBuiltCli();
    home = await mkdtemp(join(tmpdir(), "downcity-tg-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-tg-project-"));
    fake = await startFakeTelegramServer();
    model = await startOpenAICompatibleServer({
      respond: async (call) => {
        const text = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
        // The first run of the slow question hangs until the test has killed the daemon.
        if (text.includes("slow question") && releaseSlow === undefined)
          await new Promise<void>((resolve) => {
            releaseSlow = resolve;
          });
        return `echo: ${text}`;
      },
    });
    ok(await cli(["init", ".", "--json"]));
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    config.channels = {
      tg: {
        adapter: "@downcity/adapters-telegram",
        token: "${TELEGRAM_BOT_TOKEN}",
        apiRoot: fake.url,
        pollTimeoutSeconds: 1,
        access: { dm: "pairing", groups: "allowlist", allowGroups: [String(groupId)] },
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await writeFile(join(project, ".env"), `TELEGRAM_BOT_TOKEN=${fake.token}\n`);
    ok(await cli(["start", "--json"]));
  }, 240_000);

  afterAll(async () => {
    releaseSlow?.();
    if (project) await cli(["stop", "--json"]).catch(() => undefined);
    await model?.close();
    await fake?.close();
    if (home) await rm(home, { recursive: true, force: true });
    if (project) await rm(project, { recursive: true, force: true });
  });

  test("an unknown user's DM gets a pairing code and no model call; after approve the next DM is answered", async () => {
    await until(() => fake.calls("getUpdates").length > 0, "the adapter's first poll");
    const channels = ok(await cli(["channels", "list", "--json"])) as {
      channels: Array<{ name: string; state: string }>;
    };
    expect(channels.channels).toEqual([expect.objectContaining({ name: "tg", state: "connected" })]);

    const hello = fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "hello?" });
    const pairing = await until(() => sentTo(5001, /downcity access approve/)[0], "the pairing reply");
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(pairing.reply_parameters?.message_id).toBe(
      (fake.update(hello).message as { message_id: number }).message_id,
    );
    expect(model.calls).toHaveLength(0);

    ok(await cli(["access", "approve", code, "--json"]));
    const question = fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "what is 2+2?" });
    const answer = await until(() => sentTo(5001, "echo: what is 2+2?")[0], "the answer after approval");
    expect(answer.reply_parameters?.message_id).toBe(
      (fake.update(question).message as { message_id: number }).message_id,
    );
    expect(userTexts()).toEqual(["what is 2+2?"]);
  }, 60_000);

  test("a group message without a mention is ignored; one with @bot is answered in its topic", async () => {
    const before = model.calls.length;
    fake.injectMessage({
      chatType: "supergroup",
      chatId: groupId,
      from: { id: 6001 },
      threadId: 77,
      text: "just chatting",
    });
    const handle = `@${fake.bot.username}`;
    fake.injectMessage({
      chatType: "supergroup",
      chatId: groupId,
      from: { id: 6001 },
      threadId: 77,
      text: `${handle} status?`,
      entities: [{ type: "mention", offset: 0, length: handle.length }],
    });
    const reply = await until(() => sentTo(groupId, "echo: status?")[0], "the group reply");
    expect(reply.message_thread_id).toBe(77);
    expect(userTexts().slice(before)).toEqual(["status?"]);
    expect(sentTo(groupId, /just chatting/)).toHaveLength(0);
  }, 60_000);

  test("a 409 Conflict shows in downcity channels list as retrying, then clears", async () => {
    type Listed = { channels: Array<{ name: string; state: string; error?: string }> };
    fake.setConflict(true);
    const conflicted = await (async () => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const listed = ok(await cli(["channels", "list", "--json"])) as Listed;
        const channel = listed.channels.find((entry) => entry.name === "tg");
        if (channel?.state === "retrying") return channel;
        if (Date.now() > deadline) throw new Error(`no retrying state: ${JSON.stringify(listed)}`);
      }
    })();
    expect(conflicted.error).toMatch(/409 Conflict: another process is polling this bot token/);
    fake.setConflict(false);
    fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "after the conflict" });
    await until(() => sentTo(5001, "echo: after the conflict")[0], "the answer after the conflict", 40_000);
    const listed = ok(await cli(["channels", "list", "--json"])) as Listed;
    expect(listed.channels.find((entry) => entry.name === "tg")).toMatchObject({ state: "connected" });
    let logged = "";
    for (const file of await readdir(join(project, ".downcity", "logs")))
      logged += await readFile(join(project, ".downcity", "logs", file), "utf8");
    expect(logged).toMatch(/409 Conflict/);
  }, 90_000);

  test("a SIGKILL between accept and reply, then a restart, gives exactly one reply", async () => {
    const status = ok(await cli(["status", "--json"])) as { pid: number };
    const slow = fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "slow question" });
    // Accepted (the run reached the model) and acknowledged to Telegram, but not answered yet.
    await until(() => releaseSlow !== undefined, "the run of the slow question");
    await until(() => fake.isConfirmed(slow), "the confirmation of the slow question");
    process.kill(status.pid, "SIGKILL");
    await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
    releaseSlow?.();
    expect(sentTo(5001, "echo: slow question")).toHaveLength(0);

    ok(await cli(["start", "--json"]));
    await until(() => sentTo(5001, "echo: slow question")[0], "the reply after the restart");
    // A later message in the same chat is answered after it: nothing of the slow one is still in flight.
    fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "after the restart" });
    await until(() => sentTo(5001, "echo: after the restart")[0], "the next answer");
    expect(sentTo(5001, "echo: slow question")).toHaveLength(1);
    expect(userTexts().filter((text) => text === "after the restart")).toHaveLength(1);

    // The token never reached a log line.
    const logs = [join(project, ".downcity", "debug", "daemon.log")];
    for (const file of await readdir(join(project, ".downcity", "logs")).catch(() => []))
      logs.push(join(project, ".downcity", "logs", file));
    for (const file of logs) {
      const text = await readFile(file, "utf8").catch(() => "");
      expect(text).not.toContain(fake.token.split(":")[1]);
    }
  }, 90_000);
});

describe("telegram webhook mode through the daemon", () => {
  let cliMain: string;
  let home: string;
  let project: string;
  let fake: FakeTelegramServer;
  let model: OpenAICompatibleServer;
  let listen: string;
  const secret = "e2e-webhook-secret";
  const cli = (args: string[]) => runCli(cliMain, args, { cwd: project, env: { DOWNCITY_HOME: home } });

  beforeAll(async () => {
    cliMain = ensureBuiltCli();
    home = await mkdtemp(join(tmpdir(), "downcity-tgw-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-tgw-project-"));
    fake = await startFakeTelegramServer();
    model = await startOpenAICompatibleServer({
      respond: (call) =>
        `echo: ${call.messages.filter((message) => message.role === "user").at(-1)?.text ?? ""}`,
    });
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    listen = `127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect((await cli(["init", ".", "--json"])).code).toBe(0);
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    config.channels = {
      tg: {
        adapter: "@downcity/adapters-telegram",
        token: "${TELEGRAM_BOT_TOKEN}",
        apiRoot: fake.url,
        mode: "webhook",
        listen,
        path: "/telegram",
        secretToken: "${TELEGRAM_WEBHOOK_SECRET}",
        access: { dm: "allowlist", allow: ["5001"] },
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await writeFile(
      join(project, ".env"),
      `TELEGRAM_BOT_TOKEN=${fake.token}\nTELEGRAM_WEBHOOK_SECRET=${secret}\n`,
    );
    const started = await cli(["start", "--json"]);
    expect(started.code, started.stderr).toBe(0);
  }, 240_000);

  afterAll(async () => {
    if (project) await cli(["stop", "--json"]).catch(() => undefined);
    await model?.close();
    await fake?.close();
    if (home) await rm(home, { recursive: true, force: true });
    if (project) await rm(project, { recursive: true, force: true });
  });

  test("Telegram's POSTs are answered 200 once accepted and replied to; a forged POST gets 401", async () => {
    // The daemon registered nothing: webhook mode leaves that to set-webhook.
    expect(fake.calls("setWebhook")).toHaveLength(0);
    expect(fake.calls("deleteWebhook")).toHaveLength(0);
    // The explicit step, as a user runs it: the adapter's service, derived as a CLI command.
    const registered = await cli(["tg", "set-webhook", `http://${listen}/telegram`, "--json"]);
    expect(registered.code, registered.stderr).toBe(0);
    expect(fake.calls("setWebhook")).toHaveLength(1);
    expect(JSON.stringify(fake.calls("setWebhook")[0])).toContain(secret);
    const id = fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "via webhook" });
    await until(
      () => fake.sent().find((message) => message.text === "echo: via webhook"),
      "the webhook reply",
    );
    expect(fake.isConfirmed(id)).toBe(true);
    expect(fake.webhookAnswers(id).at(-1)).toBe(200);

    const forged = await fetch(`http://${listen}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "guess" },
      body: JSON.stringify(fake.update(id)),
    });
    expect(forged.status).toBe(401);
    expect(model.calls).toHaveLength(1);
  }, 60_000);
});
