import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { useDaemonTest } from "@downcity/test-support";
import { until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { fakeQqAppId, fakeQqSecret, startFakeQqPlatform } from "../src/test/fake-qq-platform.js";

// A complete 1x1 PNG: the host sniffs the bytes, so they must be a real image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

// End to end: the built `downcity` CLI starts a real daemon holding the gateway connection to the fake QQ
// platform; the model is a scripted OpenAI-compatible server echoing the user's words.
describe("qq through the daemon: images and files in, QQ markdown out with its plain-text downgrade", () => {
  const daemon = useDaemonTest({
    name: "qq-rich",
    startFake: () => startFakeQqPlatform({ heartbeatIntervalMs: 200 }),
    configure: (fake) => ({
      channels: {
        qq: {
          adapter: "@downcity/adapters-qq",
          appId: "${QQ_APP_ID}",
          clientSecret: "${QQ_CLIENT_SECRET}",
          apiBase: fake.apiBase,
          tokenUrl: fake.tokenUrl,
          reconnectDelayMs: 100,
          access: { dm: "open", groups: "open" },
        },
      },
      env: { QQ_APP_ID: fakeQqAppId, QQ_CLIENT_SECRET: fakeQqSecret },
    }),
  });
  const direct = { chatType: "direct", chatId: "USEROPENIDADA", userId: "USEROPENIDADA" } as const;
  const answer = (content: string) =>
    until(
      () => daemon.fake.sendRequests().find((request) => JSON.stringify(request.body).includes(content)),
      `the answer carrying ${content}`,
    );

  test("an image with text reaches the model as an image part, stored under .downcity/media/", async () => {
    await until(() => daemon.fake.openConnections() > 0 && daemon.fake.stats().identifies > 0, "the gateway");
    const url = daemon.fake.hostFile(png, "image/png");
    await daemon.fake.deliver({
      ...direct,
      text: "what is in this picture?",
      attachments: [
        { content_type: "image/png", url, filename: "dot.png", size: png.length, width: 1, height: 1 },
      ],
    });
    await answer("echo: what is in this picture?");
    const request = JSON.stringify(daemon.model.requests.at(-1));
    expect(request).toContain(`data:image/png;base64,${png.toString("base64")}`);
    expect(request).toContain('"type":"image_url"');
    const history = await readFile(
      join(daemon.project.dir, ".downcity", "context", "qq%3AUSEROPENIDADA", "messages", "messages.jsonl"),
      "utf8",
    );
    const [stored] = /\.downcity\/media\/qq%3AUSEROPENIDADA\/[0-9a-f]{16}-dot\.png/.exec(history) ?? [];
    expect(stored).toBeDefined();
    expect(await readFile(join(daemon.project.dir, stored as string))).toEqual(png);
    expect(history).not.toContain(png.toString("base64"));
  }, 120_000);

  test("a file sent without text is kept and the model is told where it is", async () => {
    const pdf = Buffer.from("%PDF-1.4\n% a small report\n");
    const url = daemon.fake.hostFile(pdf, "application/pdf");
    const before = daemon.model.calls.length;
    await daemon.fake.deliver({
      ...direct,
      text: "",
      attachments: [{ content_type: "file", url, filename: "report.pdf", size: pdf.length }],
    });
    await until(() => daemon.model.calls.length > before || undefined, "the model call for the file");
    const seen = daemon.model.calls.at(-1)?.messages.at(-1)?.text ?? "";
    expect(seen).toMatch(/report\.pdf/);
    const [path] = /\.downcity\/media\/qq%3AUSEROPENIDADA\/[0-9a-f]{16}-report\.pdf/.exec(seen) ?? [];
    expect(await readFile(join(daemon.project.dir, path as string))).toEqual(pdf);
    expect(daemon.fake.downloads(url)).toBe(1);
  }, 60_000);

  test("a Markdown reply arrives as msg_type 2, and as plain text after the platform refuses markdown", async () => {
    await daemon.fake.deliver({ ...direct, text: "**bold** and `code`" });
    const markdown = await answer("echo: **bold** and `code`");
    expect(markdown.body).toMatchObject({ msg_type: 2, markdown: { content: "echo: **bold** and `code`" } });

    daemon.fake.allowMarkdown(false);
    await daemon.fake.deliver({ ...direct, text: "**again**" });
    const plain = await answer("echo: again");
    expect(plain.body).toMatchObject({ msg_type: 0, content: "echo: again" });
    await daemon.fake.deliver({ ...direct, text: "_third_" });
    await answer("echo: third");
    const types = daemon.fake
      .sendRequests()
      .filter((request) => request.body.msg_type !== 6)
      .slice(-3)
      .map((request) => request.body.msg_type);
    // The refused markdown, its plain resend, then plain at once: the downgrade is remembered.
    expect(types).toEqual([2, 0, 0]);
    const logs = (await daemon.project.readLogs()).join("\n");
    expect(logs).toContain("no markdown permission");
  }, 60_000);
});
