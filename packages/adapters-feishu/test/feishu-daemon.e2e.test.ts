import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/test";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "../src/test/fake-open-platform.js";
import { type CliRun, ensureBuiltCli, runCli } from "./built-cli.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and holds
// the SDK's long connection to a fake open platform; the model is a scripted OpenAI-compatible server.

const groupId = "oc_group_allowed";

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

describe("feishu through the daemon: pairing, a group mention in a thread, a kill between accept and reply", () => {
  let cliMain: string;
  let home: string;
  let project: string;
  let fake: FakeOpenPlatform;
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
    home = await mkdtemp(join(tmpdir(), "downcity-lark-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-lark-project-"));
    fake = await startFakeOpenPlatform();
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
      lark: {
        adapter: "@downcity/adapters-feishu",
        appId: "${LARK_APP_ID}",
        appSecret: "${LARK_APP_SECRET}",
        domain: fake.domain,
        pingTimeoutSeconds: 5,
        access: { dm: "pairing", groups: "allowlist", allowGroups: [groupId] },
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await writeFile(join(project, ".env"), `LARK_APP_ID=${fakeAppId}\nLARK_APP_SECRET=${fakeAppSecret}\n`);
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
    await until(() => fake.openConnections() > 0, "the long connection");
    const channels = ok(await cli(["channels", "list", "--json"])) as {
      channels: Array<{ name: string; state: string }>;
    };
    expect(channels.channels).toEqual([expect.objectContaining({ name: "lark", state: "connected" })]);

    const hello = await fake.deliver({
      chatType: "direct",
      chatId: "oc_dm_ada",
      userId: "ou_ada",
      text: "hello?",
    });
    expect(hello.acked).toBe(true);
    const pairing = await until(() => sentTo("oc_dm_ada", /downcity access approve/)[0], "the pairing reply");
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(model.calls).toHaveLength(0);

    ok(await cli(["access", "approve", code, "--json"]));
    const question = await fake.deliver({
      chatType: "direct",
      chatId: "oc_dm_ada",
      userId: "ou_ada",
      text: "what is 2+2?",
    });
    await until(() => sentTo("oc_dm_ada", "echo: what is 2+2?")[0], "the answer after approval");
    // Sent as a reply to the question, with the outbox key as Lark's uuid.
    const request = fake
      .sendRequests()
      .find((sent) => String(sent.body.content).includes("echo: what is 2+2?"));
    expect(request?.path).toBe(`/open-apis/im/v1/messages/om_${question.eventId}/reply`);
    expect(typeof request?.body.uuid).toBe("string");
    expect(userTexts()).toEqual(["what is 2+2?"]);
  }, 60_000);

  test("a group message without a mention is ignored; one with the bot's mention is answered in its thread", async () => {
    const before = model.calls.length;
    expect(
      (
        await fake.deliver({
          chatType: "group",
          chatId: groupId,
          userId: "ou_bob",
          threadId: "omt_7",
          text: "just chatting",
        })
      ).acked,
    ).toBe(true);
    await fake.deliver({
      chatType: "group",
      chatId: "oc_other_group",
      userId: "ou_bob",
      text: "elsewhere",
      mentionBot: true,
    });
    await fake.deliver({
      chatType: "group",
      chatId: groupId,
      userId: "ou_bob",
      threadId: "omt_7",
      text: "status?",
      mentionBot: true,
    });
    const reply = await until(() => sentTo(groupId, "echo: status?")[0], "the group reply");
    expect(reply.threadId).toBe("omt_7");
    expect(userTexts().slice(before)).toEqual(["status?"]);
    expect(sentTo(groupId, /just chatting/)).toHaveLength(0);
    expect(sentTo("oc_other_group", /./)).toHaveLength(0);
  }, 60_000);

  test("a SIGKILL between accept and reply, then a restart, gives exactly one reply", async () => {
    const status = ok(await cli(["status", "--json"])) as { pid: number };
    const slow = await fake.deliver({
      chatType: "direct",
      chatId: "oc_dm_ada",
      userId: "ou_ada",
      text: "slow question",
    });
    // Acknowledged to Lark (so durable), and the run reached the model, but not answered yet.
    expect(slow.acked).toBe(true);
    await until(() => releaseSlow !== undefined, "the run of the slow question");
    process.kill(status.pid, "SIGKILL");
    await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
    releaseSlow?.();
    expect(sentTo("oc_dm_ada", "echo: slow question")).toHaveLength(0);

    ok(await cli(["start", "--json"]));
    await until(() => sentTo("oc_dm_ada", "echo: slow question")[0], "the reply after the restart");
    // Lark retries an event whose ack it did not see; the inbox knows it already.
    expect(
      (
        await fake.deliver({
          chatType: "direct",
          chatId: "oc_dm_ada",
          userId: "ou_ada",
          text: "slow question",
          eventId: slow.eventId,
        })
      ).acked,
    ).toBe(true);
    await fake.deliver({
      chatType: "direct",
      chatId: "oc_dm_ada",
      userId: "ou_ada",
      text: "after the restart",
    });
    await until(() => sentTo("oc_dm_ada", "echo: after the restart")[0], "the next answer");
    expect(sentTo("oc_dm_ada", "echo: slow question")).toHaveLength(1);
    expect(userTexts().filter((text) => text === "after the restart")).toHaveLength(1);
    expect(userTexts().filter((text) => text === "slow question").length).toBeLessThanOrEqual(2);

    // The app secret and tenant tokens never reached a log line.
    const logs = [join(project, ".downcity", "debug", "daemon.log")];
    for (const file of await readdir(join(project, ".downcity", "logs")).catch(() => []))
      logs.push(join(project, ".downcity", "logs", file));
    for (const file of logs) {
      const text = await readFile(file, "utf8").catch(() => "");
      expect(text).not.toContain(fakeAppSecret);
      expect(text).not.toMatch(/\bt-[0-9a-f]{8}-/);
    }
  }, 90_000);
});
