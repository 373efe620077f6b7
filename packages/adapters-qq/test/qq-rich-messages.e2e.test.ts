import { readdir, readFile } from "node:fs/promises";
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

// The project's media.maxBytes: every file the first tests send fits, the oversized ones do not.
const maxBytes = 64 * 1024;

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
      settings: { media: { maxBytes } },
    }),
  });
  const direct = { chatType: "direct", chatId: "USEROPENIDADA", userId: "USEROPENIDADA" } as const;
  const answer = (content: string) =>
    until(
      () => daemon.fake.sendRequests().find((request) => JSON.stringify(request.body).includes(content)),
      `the answer carrying ${content}`,
    );
  /** The text of a send request, plain (msg_type 0) or markdown (msg_type 2). */
  const textOf = (request: { body: Record<string, unknown> }) =>
    String(
      request.body.content ?? (request.body.markdown as { content?: string } | undefined)?.content ?? "",
    );
  /** The names of the files kept under .downcity/media/ (none when the folder is absent). */
  const keptFiles = async () =>
    (await readdir(join(daemon.project.dir, ".downcity", "media"), { recursive: true }).catch(() => [])).map(
      String,
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

  test("an image over media.maxBytes gets a reply naming it and the limit; the model is told, nothing is kept", async () => {
    const big = Buffer.concat([png, Buffer.alloc(100 * 1024, 7)]);
    const url = daemon.fake.hostFile(big, "image/png");
    const before = daemon.model.calls.length;
    await daemon.fake.deliver({
      ...direct,
      text: "look at my holiday photo",
      attachments: [
        { content_type: "image/png", url, filename: "holiday.png", size: big.length, width: 1, height: 1 },
      ],
    });
    const refusal = await answer("holiday.png: too large");
    expect(textOf(refusal)).toBe("I couldn't download that file: holiday.png: too large, 100 KB > 64 KB");
    // The run goes on with the text and a note in place of the image, and answers.
    await answer("echo: look at my holiday photo");
    expect(daemon.model.calls.length).toBeGreaterThan(before);
    const seen = daemon.model.calls.at(-1)?.messages.at(-1)?.text ?? "";
    expect(seen).toContain("look at my holiday photo");
    expect(seen).toContain('"holiday.png" that could not be downloaded: too large, 100 KB > 64 KB');
    expect(JSON.stringify(daemon.model.requests.at(-1))).not.toContain(big.toString("base64").slice(0, 200));
    // Refused from the size QQ states: never downloaded, nothing kept.
    expect(daemon.fake.downloads(url)).toBe(0);
    expect((await keptFiles()).filter((name) => name.includes("holiday"))).toEqual([]);
  }, 60_000);

  test("a file alone over media.maxBytes, its size unstated, is cut off in the download and refused visibly", async () => {
    const log = Buffer.from("error: add is broken\n".repeat(5000));
    const url = daemon.fake.hostFile(log, "text/plain");
    const before = daemon.model.calls.length;
    await daemon.fake.deliver({
      ...direct,
      text: "",
      attachments: [{ content_type: "file", url, filename: "build.log" }],
    });
    const refusal = await answer("build.log: too large");
    expect(textOf(refusal)).toMatch(
      /^I couldn't download that file: build\.log: too large, (103 KB > |over )64 KB$/,
    );
    // An attachment-only message still reaches the model, as the note, and is answered.
    await until(() => daemon.model.calls.length > before || undefined, "the model call for the note");
    const seen = daemon.model.calls.at(-1)?.messages.at(-1)?.text ?? "";
    expect(seen).toMatch(/"build\.log" that could not be downloaded: too large/);
    await until(
      () => daemon.fake.sendRequests().find((request) => /^echo: .*build\.log/s.test(textOf(request))),
      "the answer to the note",
    );
    expect(daemon.fake.downloads(url)).toBeLessThanOrEqual(1);
    expect((await keptFiles()).filter((name) => name.includes("build.log"))).toEqual([]);
    // The files kept before are still there: the refusal removed nothing.
    expect((await keptFiles()).some((name) => name.endsWith("-report.pdf"))).toBe(true);
  }, 60_000);
});
