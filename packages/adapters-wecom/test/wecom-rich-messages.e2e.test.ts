import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { useDaemonTest } from "@downcity/test-support";
import { until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { fakeWecomBotId, fakeWecomSecret, startFakeWecomPlatform } from "../src/test/fake-wecom-platform.js";

// A complete 1x1 PNG: the host sniffs the bytes, so they must be a real image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

// End to end through the built daemon: a stranger pairs, then sends a photo with a question (WeCom's
// `mixed` message, the image AES-encrypted at its URL); the answer is markdown finishing the stream.
describe("wecom through the daemon: pairing, then a photo with a question answered in markdown", () => {
  const daemon = useDaemonTest({
    name: "wecom-rich",
    startFake: () => startFakeWecomPlatform({ quietMs: 1500 }),
    configure: (fake) => ({
      channels: {
        wecom: {
          adapter: "@downcity/adapters-wecom",
          botId: "${WECOM_BOT_ID}",
          secret: "${WECOM_BOT_SECRET}",
          wsUrl: fake.wsUrl,
          reconnectDelayMs: 100,
          access: { dm: "pairing", groups: "allowlist" },
        },
      },
      env: { WECOM_BOT_ID: fakeWecomBotId, WECOM_BOT_SECRET: fakeWecomSecret },
    }),
  });
  const direct = { chatType: "direct", chatId: "carol", userId: "carol" } as const;
  const sent = (pattern: RegExp) => daemon.fake.sent().find((message) => pattern.test(message.text));

  test("after approval, the photo reaches the model as an image part and the answer is markdown", async () => {
    await until(() => daemon.fake.stats().subscriptions > 0 || undefined, "the long connection");
    await daemon.fake.deliver({ ...direct, text: "hi" });
    const pairing = await until(() => sent(/downcity access approve/), "the pairing reply");
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
    await daemon.project.json(["access", "approve", code, "--json"]);

    const photo = await daemon.fake.deliver({
      ...direct,
      text: "**what** is in this picture?",
      files: [{ kind: "image", mediaType: "image/png", name: "dot.png", data: png }],
    });
    expect(photo.acked).toBe(true);
    const answer = await until(() => sent(/echo: \*\*what\*\* is in this picture\?/), "the answer");
    expect(answer.format).toBe("markdown");
    const request = JSON.stringify(daemon.model.requests.at(-1));
    expect(request).toContain(`data:image/png;base64,${png.toString("base64")}`);
    const history = await readFile(
      join(daemon.project.dir, ".downcity", "context", "wecom%3Acarol", "messages", "messages.jsonl"),
      "utf8",
    );
    const [stored] = /\.downcity\/media\/wecom%3Acarol\/[0-9a-f]{16}-[\w.-]+/.exec(history) ?? [];
    expect(stored).toBeDefined();
    expect(await readFile(join(daemon.project.dir, stored as string))).toEqual(png);
    expect(history).not.toContain(png.toString("base64"));
  }, 180_000);

  test("channels list shows the state and counters, /help costs no model call, doctor reports the credentials", async () => {
    interface Listed {
      channels: Array<{ name: string; state: string; error?: string; counts: Record<string, number> }>;
    }
    const listed = await daemon.project.json<Listed>(["channels", "list", "--json"]);
    expect(listed.channels[0]).toMatchObject({ name: "wecom", state: "connected" });
    expect(listed.channels[0]?.counts.accepted).toBeGreaterThan(0);
    expect(listed.channels[0]?.counts.denied).toBeGreaterThan(0);

    const calls = daemon.model.calls.length;
    await daemon.fake.deliver({ ...direct, text: "/help" });
    await until(() => sent(/\/new/), "the /help answer");
    expect(daemon.model.calls).toHaveLength(calls);

    interface Doctor {
      checks: Array<{ name: string; status: string; detail: string }>;
    }
    const doctor = async () => {
      const run = await daemon.project.cli(["doctor", "--offline", "--json"]);
      return (JSON.parse(run.stdout) as Doctor).checks.find((check) => check.name === "channels");
    };
    expect(await doctor()).toMatchObject({ status: "ok", detail: "wecom connected" });
    // The secret is reset in the admin console: the next subscriptions are refused and the channel stops.
    daemon.fake.rejectCredentials(true);
    daemon.fake.dropConnection();
    await until(async () => {
      const now = await daemon.project.json<Listed>(["channels", "list", "--json"]);
      return now.channels[0]?.state === "failed" || undefined;
    }, "the channel to fail");
    const failed = await doctor();
    expect(failed?.status).toBe("fail");
    expect(failed?.detail).toMatch(
      /wecom .*failed: WeCom keeps refusing the bot id or secret.*botId and secret/,
    );
    expect(failed?.detail).not.toContain(fakeWecomSecret);
  }, 120_000);
});
