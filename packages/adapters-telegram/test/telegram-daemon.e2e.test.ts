import { useDaemonTest } from "@downcity/test-support";
import { freePort, isAlive, until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { startFakeTelegramServer } from "../src/test/fake-telegram-server.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and
// long-polls a fake Bot API server; the model is a scripted OpenAI-compatible server.

const groupId = -1001234567890;

describe("telegram through the daemon: pairing, approval, groups and topics, a crash between accept and reply", () => {
  const daemon = useDaemonTest({
    name: "tg",
    startFake: () => startFakeTelegramServer(),
    // The first run of the slow question hangs until the test has killed the daemon.
    hold: "slow question",
    configure: (fake) => ({
      channels: {
        tg: {
          adapter: "@downcity/adapters-telegram",
          token: "${TELEGRAM_BOT_TOKEN}",
          apiRoot: fake.url,
          pollTimeoutSeconds: 1,
          access: { dm: "pairing", groups: "allowlist", allowGroups: [String(groupId)] },
        },
      },
      env: { TELEGRAM_BOT_TOKEN: fake.token },
    }),
  });
  const sentTo = (chatId: number | string, text: string | RegExp) =>
    daemon.fake
      .sent()
      .filter(
        (message) =>
          message.chat_id === String(chatId) &&
          (typeof text === "string" ? message.text === text : text.test(message.text)),
      );

  test("an unknown user's DM gets a pairing code and no model call; after approve the user is told and the held DM answered", async () => {
    await until(() => daemon.fake.calls("getUpdates").length > 0, "the adapter's first poll");
    const channels = await daemon.project.json<{ channels: Array<{ name: string; state: string }> }>([
      "channels",
      "list",
      "--json",
    ]);
    expect(channels.channels).toEqual([expect.objectContaining({ name: "tg", state: "connected" })]);

    const hello = daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "hello?" });
    const pairing = await until(() => sentTo(5001, /downcity access approve/)[0], "the pairing reply");
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(pairing.reply_parameters?.message_id).toBe(
      (daemon.fake.update(hello).message as { message_id: number }).message_id,
    );
    expect(daemon.model.calls).toHaveLength(0);

    await daemon.project.json(["access", "approve", code, "--json"]);
    // The user is told, and the message that asked for pairing was kept: it is answered now.
    await until(() => sentTo(5001, /the owner approved you/)[0], "the approval notice");
    const held = await until(() => sentTo(5001, "echo: hello?")[0], "the answer to the held message");
    expect(held.reply_parameters?.message_id).toBe(
      (daemon.fake.update(hello).message as { message_id: number }).message_id,
    );
    const question = daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "what is 2+2?" });
    const answer = await until(() => sentTo(5001, "echo: what is 2+2?")[0], "the answer after approval");
    expect(answer.reply_parameters?.message_id).toBe(
      (daemon.fake.update(question).message as { message_id: number }).message_id,
    );
    expect(daemon.model.userTexts()).toEqual(["hello?", "what is 2+2?"]);
  }, 60_000);

  test("a group message without a mention is ignored; one with @bot is answered in its topic", async () => {
    const before = daemon.model.calls.length;
    daemon.fake.injectMessage({
      chatType: "supergroup",
      chatId: groupId,
      from: { id: 6001 },
      threadId: 77,
      text: "just chatting",
    });
    const handle = `@${daemon.fake.bot.username}`;
    daemon.fake.injectMessage({
      chatType: "supergroup",
      chatId: groupId,
      from: { id: 6001 },
      threadId: 77,
      text: `${handle} status?`,
      entities: [{ type: "mention", offset: 0, length: handle.length }],
    });
    const reply = await until(() => sentTo(groupId, "echo: status?")[0], "the group reply");
    expect(reply.message_thread_id).toBe(77);
    expect(daemon.model.userTexts().slice(before)).toEqual(["status?"]);
    expect(sentTo(groupId, /just chatting/)).toHaveLength(0);
  }, 60_000);

  test("a 409 Conflict shows in downcity channels list as retrying, then clears", async () => {
    type Listed = { channels: Array<{ name: string; state: string; error?: string }> };
    daemon.fake.setConflict(true);
    let lastList: Listed | undefined;
    const retrying = async () => {
      lastList = await daemon.project.json<Listed>(["channels", "list", "--json"]);
      const channel = lastList.channels.find((entry) => entry.name === "tg");
      return channel?.state === "retrying" ? channel : undefined;
    };
    const conflicted = await until(retrying, () => `a retrying state: ${JSON.stringify(lastList)}`, 20_000);
    expect(conflicted.error).toMatch(/409 Conflict: another process is polling this bot token/);
    daemon.fake.setConflict(false);
    daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "after the conflict" });
    await until(() => sentTo(5001, "echo: after the conflict")[0], "the answer after the conflict", 40_000);
    const listed = await daemon.project.json<Listed>(["channels", "list", "--json"]);
    expect(listed.channels.find((entry) => entry.name === "tg")).toMatchObject({ state: "connected" });
    const logged = (await daemon.project.readLogs({ dailyOnly: true })).join("");
    expect(logged).toMatch(/409 Conflict/);
  }, 90_000);

  test("a SIGKILL between accept and reply, then a restart, gives exactly one reply", async () => {
    const status = await daemon.project.json<{ pid: number }>(["status", "--json"]);
    const slow = daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "slow question" });
    // Accepted (the run reached the model) and acknowledged to Telegram, but not answered yet.
    await until(() => daemon.model.holding(), "the run of the slow question");
    await until(() => daemon.fake.isConfirmed(slow), "the confirmation of the slow question");
    process.kill(status.pid, "SIGKILL");
    await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
    daemon.model.release();
    expect(sentTo(5001, "echo: slow question")).toHaveLength(0);

    await daemon.project.json(["start", "--json"]);
    await until(() => sentTo(5001, "echo: slow question")[0], "the reply after the restart");
    // A later message in the same chat is answered after it: nothing of the slow one is still in flight.
    daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "after the restart" });
    await until(() => sentTo(5001, "echo: after the restart")[0], "the next answer");
    expect(sentTo(5001, "echo: slow question")).toHaveLength(1);
    expect(daemon.model.userTexts().filter((text) => text === "after the restart")).toHaveLength(1);

    // The token never reached a log line.
    for (const text of await daemon.project.readLogs()) {
      expect(text).not.toContain(daemon.fake.token.split(":")[1]);
    }
  }, 90_000);
});

describe("telegram webhook mode through the daemon", () => {
  const secret = "e2e-webhook-secret";
  let listen: string;
  const daemon = useDaemonTest({
    name: "tgw",
    startFake: () => startFakeTelegramServer(),
    configure: async (fake) => {
      listen = `127.0.0.1:${await freePort()}`;
      return {
        channels: {
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
        },
        env: { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_WEBHOOK_SECRET: secret },
      };
    },
  });

  test("Telegram's POSTs are answered 200 once accepted and replied to; a forged POST gets 401", async () => {
    // The daemon registered nothing: webhook mode leaves that to set-webhook.
    expect(daemon.fake.calls("setWebhook")).toHaveLength(0);
    expect(daemon.fake.calls("deleteWebhook")).toHaveLength(0);
    // The explicit step, as a user runs it: the adapter's service, derived as a CLI command.
    const registered = await daemon.project.cli(["tg", "set-webhook", `http://${listen}/telegram`, "--json"]);
    expect(registered.code, registered.stderr).toBe(0);
    expect(daemon.fake.calls("setWebhook")).toHaveLength(1);
    expect(JSON.stringify(daemon.fake.calls("setWebhook")[0])).toContain(secret);
    const id = daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "via webhook" });
    await until(
      () => daemon.fake.sent().find((message) => message.text === "echo: via webhook"),
      "the webhook reply",
    );
    expect(daemon.fake.isConfirmed(id)).toBe(true);
    expect(daemon.fake.webhookAnswers(id).at(-1)).toBe(200);

    const forged = await fetch(`http://${listen}/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "guess" },
      body: JSON.stringify(daemon.fake.update(id)),
    });
    expect(forged.status).toBe(401);
    expect(daemon.model.calls).toHaveLength(1);
  }, 60_000);
});
