import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { useDaemonTest } from "@downcity/test-support";
import { until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { heldFollowUpNote } from "../src/deliver-pending-follow-ups.js";
import { fakeWeixinToken, startFakeWeixinPlatform } from "../src/test/fake-weixin-platform.js";

// A complete 1x1 PNG: the host sniffs the bytes, so they must be a real image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

// End to end: the built CLI's daemon long-polls the fake iLink server; the model echoes the user's words.
describe("weixin through the daemon: a photo with a question, a voice transcript, plain text out", () => {
  const daemon = useDaemonTest({
    name: "weixin-rich",
    // The first run of "slow one" waits for model.release(), so the reply window can close meanwhile.
    hold: "slow one",
    startFake: () => startFakeWeixinPlatform(),
    configure: (fake) => ({
      channels: {
        wechat: {
          adapter: "@downcity/adapters-weixin",
          token: "${WEIXIN_BOT_TOKEN}",
          baseUrl: fake.baseUrl,
          cdnBaseUrl: fake.cdnBaseUrl,
          reconnectDelayMs: 100,
          access: { dm: "open" },
        },
      },
      env: { WEIXIN_BOT_TOKEN: fakeWeixinToken },
    }),
  });
  const direct = { chatType: "direct", chatId: "wxid_ada@im.wechat", userId: "wxid_ada@im.wechat" } as const;
  const answer = (text: string) =>
    until(() => daemon.fake.sent().find((sent) => sent.text.includes(text)), `the answer carrying ${text}`);

  test("a photo with a question reaches the model as an image, stored under .downcity/media/", async () => {
    await until(() => daemon.fake.polls().length > 1 || undefined, "the first poll");
    await daemon.fake.deliver({
      ...direct,
      text: "what is in this picture?",
      files: [{ kind: "image", mediaType: "image/png", data: png }],
    });
    await answer("echo: what is in this picture?");
    const request = JSON.stringify(daemon.model.requests.at(-1));
    expect(request).toContain(`data:image/png;base64,${png.toString("base64")}`);
    // The context folder is the context id, encoded (how "@" is written is the encoder's business).
    const contexts = await readdir(join(daemon.project.dir, ".downcity", "context"));
    const folder = contexts.find((name) => name.startsWith("wechat%3Awxid_ada")) as string;
    const history = await readFile(
      join(daemon.project.dir, ".downcity", "context", folder, "messages", "messages.jsonl"),
      "utf8",
    );
    expect(history).toMatch(/\.downcity\/media\/wechat%3Awxid_ada[^/"]*\/[0-9a-f]{16}/);
    expect(history).not.toContain(png.toString("base64"));
  }, 120_000);

  test("a voice note's WeChat transcript is given to the model, marked as machine-made", async () => {
    const voice = Buffer.concat([Buffer.from("OggS\0\x02"), Buffer.alloc(70, 5)]);
    await daemon.fake.deliver({
      ...direct,
      text: "",
      files: [{ kind: "voice", mediaType: "audio/ogg", data: voice }],
      transcript: "remind me to water the plants",
    });
    await answer("remind me to water the plants");
    const seen = daemon.model.calls.at(-1)?.messages.at(-1)?.text ?? "";
    expect(seen).toContain(
      "[WeChat's automatic transcript of the voice message: remind me to water the plants]",
    );
  }, 60_000);

  test("Markdown arrives as plain text; a reply without a fresh context token waits for the next message", async () => {
    await daemon.fake.deliver({ ...direct, text: "**bold** and `code`" });
    const plain = await answer("echo: bold and code");
    expect(plain.text).not.toContain("**");
    // The reply window closes before the answer goes out: it is kept and sent after the user's next message.
    await daemon.fake.deliver({ ...direct, text: "slow one" });
    await until(() => daemon.model.holding() || undefined, "the run of the slow question");
    daemon.fake.closeReplyWindow(direct.chatId);
    daemon.model.release();
    await until(
      () => daemon.fake.sendRequests().some((request) => request.status === "refused") || undefined,
      "the refused reply",
    );
    await daemon.fake.deliver({ ...direct, text: "hello again" });
    await answer(heldFollowUpNote);
    await answer("echo: slow one");
    await answer("echo: hello again");
  }, 90_000);
});
