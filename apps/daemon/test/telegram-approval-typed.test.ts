import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeTelegramServer, startFakeTelegramServer } from "@downcity/adapters-telegram/test";
import { downcityPaths } from "@downcity/core";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, describe, expect, inject, it } from "vitest";
import { daemonStatus, initProject, startDaemonDetached, stopDaemon } from "../src/index.js";
import { installTelegramAdapter } from "./telegram-daemon-world.js";
import { createTempWorld } from "./temp-project.js";

const group = -1001234567890;
const bot = "dc_test_bot";

/** How many times the approved command ran: each run appends one line to `ran.log`. */
const runsOf = (rootDir: string, name: string) =>
  readFileSync(join(rootDir, `${name}.log`), { encoding: "utf8", flag: "a+" })
    .split("\n")
    .filter(Boolean).length;

describe("approvals typed in a Telegram group (the built daemon against the fake Bot API)", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("/approve typed in the chat removes the request's keyboard, also for a request sent before a SIGKILL and restart", async () => {
    const world = await createTempWorld("dc-telegram-approval-typed-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    const fake: FakeTelegramServer = await startFakeTelegramServer({ username: bot });
    cleanups.push(() => fake.close());
    // The model runs the command a user message names, and reports what the tool answered.
    const model = await startOpenAICompatibleServer({
      respond: (call) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool") return `tool said: ${last.text}`;
        const command = /run: (.+)$/m.exec(last?.text ?? "")?.[1];
        return command ? { toolCalls: [{ toolName: "shell_exec", input: { command } }] } : "ok";
      },
    });
    cleanups.push(() => model.close());
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    // The group needs a mention (the default); tg:7 approves.
    config.channels = {
      tg: {
        adapter: "@downcity/adapters-telegram",
        token: fake.token,
        apiRoot: fake.url,
        pollTimeoutSeconds: 1,
        access: { dm: "open", groups: "allowlist", allowGroups: [String(group)] },
      },
    };
    config.approvals = { mode: "ask", approvers: ["tg:7"], timeoutMs: 120_000 };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await installTelegramAdapter(rootDir);
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 2000 }));
    const entry = inject("daemonEntry");
    let daemon = await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });

    const mention = `@${bot}`;
    const ask = (command: string) =>
      fake.injectMessage({
        chatType: "supergroup",
        chatId: group,
        from: { id: 7 },
        text: `${mention} run: ${command}`,
        entities: [{ type: "mention", offset: 0, length: mention.length }],
      });
    const type = (
      text: string,
      from: number,
      entities?: Array<{ type: "bot_command"; offset: 0; length: number }>,
    ) =>
      fake.injectMessage({
        chatType: "supergroup",
        chatId: group,
        from: { id: from },
        text,
        ...(entities ? { entities } : {}),
      });
    const requestWith = (marker: string) =>
      until(
        () =>
          fake.sent().find((sent) => sent.text.includes(marker) && sent.reply_markup?.inline_keyboard.length),
        `the request to run ${marker}, with its keyboard`,
      );
    const codeOf = (text: string) => /\(([A-Z0-9]{4,6})\)/.exec(text)?.[1] as string;
    const keyboardGone = (messageId: number) =>
      until(
        () =>
          fake
            .sent()
            .find((sent) => sent.message_id === messageId && !sent.reply_markup?.inline_keyboard.length),
        `the keyboard of message ${messageId} removed`,
      );

    // 1. Typed, not pressed: a non-approver's bare /approve is told; the approver's /approve@bot runs it.
    ask("echo ran >> first.log");
    const first = await requestWith("first.log");
    const firstCode = codeOf(first.text);
    type(`/approve ${firstCode}`, 99);
    await until(
      () => fake.sent().find((sent) => sent.text.startsWith("Only approvers can answer")),
      "the non-approver told",
    );
    expect(runsOf(rootDir, "first")).toBe(0);
    const command = `/approve@${bot}`;
    type(`${command} ${firstCode}`, 7, [{ type: "bot_command", offset: 0, length: command.length }]);
    await until(() => runsOf(rootDir, "first") === 1, "the approved command to run");
    const firstDecided = await keyboardGone(first.message_id);
    expect(firstDecided.text).toContain(`Approved once by tg:7 (${firstCode})`);

    // 2. SIGKILL while a request is pending (its message kept with it); after a restart a bare
    // /approve runs it once and its keyboard, sent by the killed daemon, is removed.
    ask("echo ran >> second.log");
    const second = await requestWith("second.log");
    const secondCode = codeOf(second.text);
    const approvalsFile = downcityPaths(rootDir).approvalsFile;
    await until(
      () =>
        readFile(approvalsFile, "utf8").then((text) => text.includes(`"messageId": "${second.message_id}"`)),
      "the request's message kept in approvals.json",
    );
    process.kill(daemon.pid, "SIGKILL");
    await until(async () => !(await daemonStatus({ rootDir })).running, "the daemon gone");
    daemon = await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });
    expect(runsOf(rootDir, "second")).toBe(0);
    type(`/approve ${secondCode}`, 7);
    // The restarted daemon's adapter polls again first: a longer deadline than one step's.
    await until(() => runsOf(rootDir, "second") === 1, "the command approved after the restart to run", {
      timeoutMs: 60_000,
    });
    const secondDecided = await keyboardGone(second.message_id);
    expect(secondDecided.text).toContain(`Approved once by tg:7 (${secondCode})`);
    type(`/approve ${secondCode}`, 7);
    await until(
      () => fake.sent().find((sent) => sent.text.includes(`${secondCode} is already settled`)),
      "a second /approve told it is settled",
    );
    expect(runsOf(rootDir, "second")).toBe(1);
  }, 180_000);
});
