import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeTelegramServer, startFakeTelegramServer } from "@downcity/adapters-telegram/test";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { createTempWorld } from "./temp-project.js";

const group = -1001234567890;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** The daemon with one Telegram channel on the fake Bot API, approvals asked in chats, approver tg:7. */
async function startAgent(): Promise<{ fake: FakeTelegramServer; rootDir: string }> {
  const world = await createTempWorld("dc-telegram-approval-");
  cleanups.push(world.cleanup);
  const fake = await startFakeTelegramServer();
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
  const rootDir = world.project();
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
  });
  const configPath = join(rootDir, "downcity.json");
  const config = JSON.parse(await readFile(configPath, "utf8"));
  config.channels = {
    tg: {
      adapter: "@downcity/adapters-telegram",
      token: fake.token,
      apiRoot: fake.url,
      pollTimeoutSeconds: 1,
      access: { dm: "open", groups: "allowlist", allowGroups: [String(group)], requireMention: false },
    },
  };
  config.approvals = { mode: "ask", approvers: ["tg:7"], timeoutMs: 60_000 };
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const { daemon } = await startInProcessDaemon(rootDir, world.env, undefined);
  cleanups.push(() => daemon.close());
  return { fake, rootDir };
}

describe("approvals with Telegram buttons (daemon against the fake Bot API)", () => {
  it("asks with an inline keyboard; a stranger's press is refused privately; the approver's press runs the command and removes the keyboard", async () => {
    const { fake, rootDir } = await startAgent();
    const marker = join(rootDir, "marker");
    fake.injectMessage({ chatType: "group", chatId: group, from: { id: 7 }, text: "run: touch marker" });
    const request = await until(
      () => fake.sent().find((sent) => sent.reply_markup?.inline_keyboard.length),
      "the request with its keyboard",
    );
    const buttons = request.reply_markup?.inline_keyboard.flat() ?? [];
    expect(buttons.map((button) => button.text)).toEqual(["Allow once", "Always allow touch *", "Deny"]);
    const allow = buttons[0]?.callback_data as string;
    expect(allow).toMatch(/^approval:[A-Z0-9]{4,6}:once$/);

    // Someone who is not an approver: a private "only approvers" toast, nothing runs, the keyboard stays.
    fake.pressButton(request.message_id, allow, { id: 99, username: "mallory" });
    await until(
      () => fake.callbackAnswers().find((answer) => answer.text === "Only approvers can answer"),
      "the toast",
    );
    expect(existsSync(marker)).toBe(false);
    expect(request.reply_markup?.inline_keyboard.length).toBeGreaterThan(0);

    fake.pressButton(request.message_id, allow, { id: 7 });
    await until(() => existsSync(marker), "the approved command to run");
    await until(() => fake.callbackAnswers().find((answer) => answer.text === "Allowed once"), "the answer");
    const decided = await until(
      () =>
        fake
          .sent()
          .find(
            (sent) => sent.message_id === request.message_id && !sent.reply_markup?.inline_keyboard.length,
          ),
      "the keyboard removed",
    );
    expect(decided.text).toContain("Approved once by tg:7");
    await until(() => fake.sent().find((sent) => sent.text.startsWith("tool said:")), "the model's answer");
  });
});
