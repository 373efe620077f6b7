import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { useDaemonTest } from "@downcity/test-support";
import { isAlive, until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import {
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "../src/test/fake-dingtalk-platform.js";

// A complete 1x1 PNG: the host sniffs the bytes, so they must be a real image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

// End to end: the built `downcity` CLI starts a real daemon holding the Stream connection (the official SDK) to
// the fake DingTalk; the model is a scripted OpenAI-compatible server echoing the user's words.
describe("dingtalk through the daemon: a paired user's photo answered in Markdown, a kill before the ack reached DingTalk", () => {
  const daemon = useDaemonTest({
    name: "dingtalk-rich",
    startFake: () => startFakeDingtalkPlatform(),
    hold: "kill before the ack",
    configure: (fake) => ({
      channels: {
        dingtalk: {
          adapter: "@downcity/adapters-dingtalk",
          clientId: "${DINGTALK_CLIENT_ID}",
          clientSecret: "${DINGTALK_CLIENT_SECRET}",
          apiBase: fake.apiBase,
          oapiBase: fake.apiBase,
          reconnectDelayMs: 100,
          access: { dm: "pairing", groups: "allowlist" },
        },
      },
      env: { DINGTALK_CLIENT_ID: fakeDingtalkClientId, DINGTALK_CLIENT_SECRET: fakeDingtalkSecret },
    }),
  });
  const direct = { chatType: "direct", chatId: "manager4721", userId: "manager4721" } as const;
  const answers = (text: string) => daemon.fake.robotSends().filter((sent) => sent.msgParam.text === text);

  test("a stranger gets a pairing code; once approved, a photo with a question is answered as sampleMarkdown", async () => {
    await until(() => daemon.fake.openConnections() > 0 || undefined, "the stream connection");
    expect((await daemon.fake.deliver({ ...direct, text: "hi, who are you?" })).acked).toBe(true);
    const pairing = await until(
      () => daemon.fake.sent().find((sent) => /downcity access approve/.test(sent.text)),
      "the pairing reply",
    );
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    expect(daemon.model.calls).toHaveLength(0);
    await daemon.project.json(["access", "approve", code, "--json"]);

    const delivered = await daemon.fake.deliver({
      ...direct,
      text: "what is in **this** picture?",
      files: [{ kind: "image", mediaType: "image/png", name: "dot.png", data: png }],
    });
    expect(delivered.acked).toBe(true);
    const [answer] = await until(() => {
      const found = answers("echo: what is in **this** picture?");
      return found.length ? found : undefined;
    }, "the Markdown answer");
    expect(answer?.body).toMatchObject({ msgKey: "sampleMarkdown", userIds: ["manager4721"] });
    expect(answer?.msgParam.title).toBe("echo: what is in this picture?");
    // The picture reached the model as an image part, and history keeps it by path under .downcity/media/.
    const request = JSON.stringify(daemon.model.requests.at(-1));
    expect(request).toContain(`data:image/png;base64,${png.toString("base64")}`);
    const history = await readFile(
      join(
        daemon.project.dir,
        ".downcity",
        "context",
        "dingtalk%3Amanager4721",
        "messages",
        "messages.jsonl",
      ),
      "utf8",
    );
    const [stored] = /\.downcity\/media\/dingtalk%3Amanager4721\/[0-9a-f]{16}-[\w.-]+/.exec(history) ?? [];
    expect(await readFile(join(daemon.project.dir, stored as string))).toEqual(png);
  }, 120_000);

  test("SIGKILLed after the accept, before DingTalk saw the ack: the redelivery is processed once", async () => {
    const status = await daemon.project.json<{ pid: number }>(["status", "--json"]);
    daemon.fake.ignoreAcks(true);
    const message = { ...direct, text: "kill before the ack" };
    const first = await daemon.fake.deliver(message);
    expect(first.acked).toBe(false);
    // The run reached the model, so the message is durable in the inbox; DingTalk has no ack for it.
    await until(() => daemon.model.holding() || undefined, "the run of the message");
    process.kill(status.pid, "SIGKILL");
    await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
    daemon.model.release();
    daemon.fake.ignoreAcks(false);

    await daemon.project.json(["start", "--json"]);
    await until(() => daemon.fake.openConnections() > 0 || undefined, "the new stream connection");
    // DingTalk redelivers what it never saw acknowledged; the restarted daemon acknowledges it as known.
    expect(await daemon.fake.redeliver(first.eventId)).toBe(true);
    await until(() => answers("echo: kill before the ack")[0], "the answer after the restart");
    await daemon.fake.deliver({ ...direct, text: "and after that?" });
    await until(() => answers("echo: and after that?")[0], "the next answer");
    expect(answers("echo: kill before the ack")).toHaveLength(1);
    expect(
      daemon.model.userTexts().filter((text) => text === "kill before the ack").length,
    ).toBeLessThanOrEqual(2);
  }, 120_000);

  test("channels list shows the state and counters, /help costs no model call, doctor reports the credentials", async () => {
    interface Listed {
      channels: Array<{ name: string; state: string; error?: string; counts: Record<string, number> }>;
    }
    const listed = await daemon.project.json<Listed>(["channels", "list", "--json"]);
    const [channel] = listed.channels;
    expect(channel).toMatchObject({ name: "dingtalk", state: "connected" });
    expect(channel?.counts.accepted).toBeGreaterThan(0);
    expect(channel?.counts.duplicate).toBeGreaterThanOrEqual(1);

    const calls = daemon.model.calls.length;
    await daemon.fake.deliver({ ...direct, text: "/help" });
    await until(() => daemon.fake.sent().find((sent) => sent.text.includes("/new")), "the /help answer");
    expect(daemon.model.calls).toHaveLength(calls);

    interface Doctor {
      checks: Array<{ name: string; status: string; detail: string }>;
    }
    const doctor = async () => {
      const run = await daemon.project.cli(["doctor", "--offline", "--json"]);
      return (JSON.parse(run.stdout) as Doctor).checks.find((check) => check.name === "channels");
    };
    expect(await doctor()).toMatchObject({ status: "ok", detail: "dingtalk connected" });
    // The Client Secret is reset in the console: the next connection is refused and the channel stops.
    daemon.fake.rejectCredentials(true);
    daemon.fake.dropConnection();
    await until(async () => {
      const now = await daemon.project.json<Listed>(["channels", "list", "--json"]);
      return now.channels[0]?.state === "failed" || undefined;
    }, "the channel to fail");
    const failed = await doctor();
    expect(failed?.status).toBe("fail");
    expect(failed?.detail).toMatch(
      /dingtalk .*failed: DingTalk refused the app's credentials.*clientId and clientSecret/,
    );
    expect(failed?.detail).not.toContain(fakeDingtalkSecret);
  }, 120_000);
});
