import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/test";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type FakeQqPlatform,
  fakeQqAppId,
  fakeQqSecret,
  startFakeQqPlatform,
} from "../src/test/fake-qq-platform.js";
import { type CliRun, ensureBuiltCli, runCli } from "./built-cli.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and holds
// the gateway connection to a fake QQ platform; the model is a scripted OpenAI-compatible server.

const groupId = "GROUPOPENIDALLOWED";

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

describe("qq through the daemon: pairing, a group @-message, a kill between accept and reply", () => {
  let cliMain: string;
  let home: string;
  let project: string;
  let fake: FakeQqPlatform;
  let model: OpenAICompatibleServer;
  let releaseSlow: (() => void) | undefined;
  const userTexts = () =>
    model.calls.map((call) => call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "");
  const cli = (args: string[]) => runCli(cliMain, args, { cwd: project, env: { DOWNCITY_HOME: home } });
  const ok = (run: CliRun) => {
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  const sentTo = (chatId: string, text: string | RegExp) =>
    fake
      .sent()
      .filter(
        (message) =>
          message.chatId === chatId &&
          (typeof text === "string" ? message.text === text : text.test(message.text)),
      );

  beforeAll(async () => {
    cliMain = ensureBuiltCli();
    home = await mkdtemp(join(tmpdir(), "downcity-qq-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-qq-project-"));
    fake = await startFakeQqPlatform({ heartbeatIntervalMs: 200 });
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
      qq: {
        adapter: "@downcity/adapters-qq",
        appId: "${QQ_APP_ID}",
        clientSecret: "${QQ_CLIENT_SECRET}",
        apiBase: fake.apiBase,
        tokenUrl: fake.tokenUrl,
        reconnectDelayMs: 100,
        access: { dm: "pairing", groups: "allowlist", allowGroups: [groupId] },
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await writeFile(join(project, ".env"), `QQ_APP_ID=${fakeQqAppId}\nQQ_CLIENT_SECRET=${fakeQqSecret}\n`);
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
    await until(() => fake.openConnections() > 0 && fake.stats().identifies > 0, "the gateway session");
    const channels = ok(await cli(["channels", "list", "--json"])) as {
      channels: Array<{ name: string; state: string }>;
    };
    expect(channels.channels).toEqual([expect.objectContaining({ name: "qq", state: "connected" })]);

    const hello = await fake.deliver({
      chatType: "direct",
      chatId: "USEROPENIDADA",
      userId: "USEROPENIDADA",
      text: "hello?",
    });
    expect(hello.acked).toBe(true);
    const pairing = await until(
      () => sentTo("USEROPENIDADA", /downcity access approve/)[0],
      "the pairing reply",
    );
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(model.calls).toHaveLength(0);

    ok(await cli(["access", "approve", code, "--json"]));
    const question = await fake.deliver({
      chatType: "direct",
      chatId: "USEROPENIDADA",
      userId: "USEROPENIDADA",
      text: "what is 2+2?",
    });
    await until(() => sentTo("USEROPENIDADA", "echo: what is 2+2?")[0], "the answer after approval");
    // Sent as a reply to the question: its msg_id and a msg_seq fixed by the outbox key.
    const request = fake.sendRequests().find((sent) => sent.body.content === "echo: what is 2+2?");
    expect(request?.path).toBe("/v2/users/USEROPENIDADA/messages");
    expect(request?.body).toMatchObject({ msg_type: 0, msg_id: `msg-${question.eventId}` });
    expect(typeof request?.body.msg_seq).toBe("number");
    expect(userTexts()).toEqual(["what is 2+2?"]);
  }, 60_000);

  test("a group message without a mention is ignored; an @-message is answered in the group", async () => {
    const before = model.calls.length;
    expect(
      (
        await fake.deliver({
          chatType: "group",
          chatId: groupId,
          userId: "MEMBEROPENIDBOB",
          text: "just chatting",
        })
      ).acked,
    ).toBe(true);
    await fake.deliver({
      chatType: "group",
      chatId: "GROUPOPENIDOTHER",
      userId: "MEMBEROPENIDBOB",
      text: "elsewhere",
      mentionBot: true,
    });
    await fake.deliver({
      chatType: "group",
      chatId: groupId,
      userId: "MEMBEROPENIDBOB",
      text: "status?",
      mentionBot: true,
    });
    const reply = await until(() => sentTo(groupId, "echo: status?")[0], "the group reply");
    expect(reply.chatId).toBe(groupId);
    expect(userTexts().slice(before)).toEqual(["status?"]);
    expect(sentTo(groupId, /just chatting/)).toHaveLength(0);
    expect(sentTo("GROUPOPENIDOTHER", /./)).toHaveLength(0);
  }, 60_000);

  test("a SIGKILL between accept and reply, then a restart, gives exactly one reply", async () => {
    const status = ok(await cli(["status", "--json"])) as { pid: number };
    const slow = await fake.deliver({
      chatType: "direct",
      chatId: "USEROPENIDADA",
      userId: "USEROPENIDADA",
      text: "slow question",
    });
    // Confirmed to the platform by a heartbeat (so durable), and the run reached the model, but not answered yet.
    expect(slow.acked).toBe(true);
    await until(() => releaseSlow !== undefined, "the run of the slow question");
    process.kill(status.pid, "SIGKILL");
    await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
    releaseSlow?.();
    expect(sentTo("USEROPENIDADA", "echo: slow question")).toHaveLength(0);

    ok(await cli(["start", "--json"]));
    await until(() => sentTo("USEROPENIDADA", "echo: slow question")[0], "the reply after the restart");
    // The restarted daemon resumed the saved session; a redelivery of the event is known to the inbox.
    expect(fake.stats().identifies).toBe(1);
    expect(fake.stats().resumes.length).toBeGreaterThanOrEqual(1);
    expect(await fake.redeliver(slow.eventId)).toBe(true);
    await fake.deliver({
      chatType: "direct",
      chatId: "USEROPENIDADA",
      userId: "USEROPENIDADA",
      text: "after the restart",
    });
    await until(() => sentTo("USEROPENIDADA", "echo: after the restart")[0], "the next answer");
    expect(sentTo("USEROPENIDADA", "echo: slow question")).toHaveLength(1);
    expect(userTexts().filter((text) => text === "after the restart")).toHaveLength(1);
    expect(userTexts().filter((text) => text === "slow question").length).toBeLessThanOrEqual(2);

    // The client secret and access tokens never reached a log line.
    const logs = [join(project, ".downcity", "debug", "daemon.log")];
    for (const file of await readdir(join(project, ".downcity", "logs")).catch(() => []))
      logs.push(join(project, ".downcity", "logs", file));
    for (const file of logs) {
      const text = await readFile(file, "utf8").catch(() => "");
      expect(text).not.toContain(fakeQqSecret);
      expect(text).not.toContain("qqtok-");
    }
  }, 90_000);
});
