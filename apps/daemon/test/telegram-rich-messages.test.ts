import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readTelegramHtml } from "@downcity/core";
import { until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { lastUserText, useTelegramDaemon } from "./telegram-daemon-world.js";

// End to end: a real detached daemon loads the Telegram adapter by package name and long-polls the fake
// Bot API; the model is a scripted OpenAI-compatible server (chat and transcriptions).

// A complete 1x1 PNG (the host sniffs the bytes); a trailing byte after IEND makes each copy distinct.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);
const pngNumber = (index: number) => Buffer.concat([png, Buffer.from([index])]);
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString("base64")}`;
const ogg = Buffer.concat([Buffer.from("OggS\0\u0002"), Buffer.alloc(200, 7)]);
const pdf = Buffer.from("%PDF-1.4\n% the quarterly report\n");

const codeLines = Array.from(
  { length: 220 },
  (_, index) => `  total += weigh(items[${index}]) * 2; // <${index}>`,
);
const longCode = codeLines.join("\n").slice(0, 6000);
const richAnswer = [
  "## Results & next steps",
  "",
  "The **build** passed; see [the log](https://ci.test/run?id=7&view=full).",
  "",
  "| Package | Time |",
  "|:--|--:|",
  "| core | 1.2 s |",
  "| adapters-telegram | 0.8 s |",
  "",
  "```ts",
  longCode,
  "```",
].join("\n");

describe("telegram through the daemon: media in, formatted replies out", () => {
  const daemon = useTelegramDaemon({
    llm: { transcription: "whisper-1" },
    respond: (call) => {
      const text = lastUserText(call);
      if (text.includes("format please")) return richAnswer;
      if (text.includes("parse error please")) return "**Done** & <checked>";
      return `echo: ${text}`;
    },
    transcribe: () => "please buy milk",
  });
  const sentAfter = (count: number) => daemon.fake.sent().slice(count);
  const history = () =>
    readFile(join(daemon.rootDir, ".downcity/context/tg%3A42/messages/messages.jsonl"), "utf8");

  test("a reply with a heading, bold, a link, a table and a 6,000-character code block arrives as valid HTML chunks", async () => {
    const before = daemon.fake.sent().length;
    daemon.fake.injectMessage({ text: "format please" });
    const chunks = await until(() => {
      const sent = sentAfter(before).filter((message) => message.chat_id === "42");
      // The last line of the code, as HTML, closes the answer.
      const lastLine = (longCode.split("\n").at(-1) ?? "").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
      return sent.at(-1)?.text.includes(lastLine) ? sent : undefined;
    }, "every chunk of the formatted answer");
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const chunk of chunks) {
      expect(chunk.parse_mode).toBe("HTML");
      expect(chunk.text.length).toBeLessThanOrEqual(4096);
      expect(readTelegramHtml(chunk.text)).toMatchObject({ ok: true });
    }
    const [first, ...rest] = chunks.map((chunk) => chunk.text);
    expect(first).toContain("<b>Results &amp; next steps</b>");
    expect(first).toContain("<b>build</b>");
    expect(first).toContain('<a href="https://ci.test/run?id=7&amp;view=full">the log</a>');
    expect(first).toMatch(/<pre>Package\s+\|\s+Time\n/);
    expect(first).toContain('<pre><code class="language-ts">');
    for (const chunk of rest) expect(chunk.startsWith('<pre><code class="language-ts">')).toBe(true);
    const shown = chunks.map((chunk) => (readTelegramHtml(chunk.text) as { text: string }).text).join("\n");
    // Every line of the code arrives, escaped, once.
    for (const line of longCode.split("\n")) expect(shown.split(line).length - 1).toBe(1);
  }, 60_000);

  test("an answer whose HTML Telegram refuses is sent once more as plain text: never lost, never doubled", async () => {
    const before = daemon.fake.calls("sendMessage").length;
    daemon.fake.failNextHtmlParse();
    daemon.fake.injectMessage({ text: "parse error please" });
    await until(
      () => daemon.fake.sent().find((sent) => sent.text === "Done & <checked>"),
      "the plain-text answer",
    );
    const calls = daemon.fake.calls("sendMessage").slice(before);
    expect(calls.map((call) => call.payload.parse_mode)).toEqual(["HTML", undefined]);
    expect(daemon.fake.sent().filter((sent) => sent.text.includes("Done"))).toHaveLength(1);
    const logs = await daemon.logs();
    expect(logs).toContain("sent it as plain text");
    expect(logs).not.toContain(daemon.fake.token.split(":")[1]);
  }, 60_000);

  test("a photo with a caption reaches the model as an image part, stored by path", async () => {
    const photo = daemon.fake.addFile(pngNumber(0), "photos/file_0.jpg");
    daemon.fake.injectMessage({
      caption: "what is in this photo?",
      media: { photo: [{ ...photo, width: 1, height: 1 }] },
    });
    await until(
      () => daemon.fake.sent().find((sent) => sent.text.includes("echo: what is in this photo?")),
      "the answer",
    );
    const request = JSON.stringify(daemon.model.requests.at(-1));
    expect(request).toContain(dataUrl(pngNumber(0)));
    expect(request).toContain('"type":"image_url"');
    const stored = /\.downcity\/media\/tg%3A42\/[0-9a-f]{16}-[\w.-]+\.png/.exec(await history())?.[0];
    expect(await readFile(join(daemon.rootDir, stored as string))).toEqual(pngNumber(0));
    expect(await history()).not.toContain(pngNumber(0).toString("base64"));
  }, 60_000);

  test("a voice note is transcribed before the turn; the model reads the transcript and the file's path", async () => {
    const voice = daemon.fake.addFile(ogg, "voice/file_1.oga");
    daemon.fake.injectMessage({
      from: { id: 102 },
      media: { voice: { ...voice, duration: 3, mime_type: "audio/ogg" } },
    });
    await until(() => daemon.model.transcriptions[0], "the transcription request");
    expect(Buffer.from(daemon.model.transcriptions[0]?.audio ?? []).equals(ogg)).toBe(true);
    const call = await until(
      () => daemon.model.calls.find((candidate) => lastUserText(candidate).includes("please buy milk")),
      "the model call with the transcript",
    );
    expect(lastUserText(call)).toMatch(/\.downcity\/media\/tg%3A102\/[0-9a-f]{16}-[\w.-]+/);
  }, 60_000);

  test("a document is kept and named to the model with its path", async () => {
    const document = daemon.fake.addFile(pdf, "documents/file_2.pdf");
    daemon.fake.injectMessage({
      from: { id: 103 },
      caption: "summarise this",
      media: { document: { ...document, file_name: "report.pdf", mime_type: "application/pdf" } },
    });
    const call = await until(
      () => daemon.model.calls.find((candidate) => lastUserText(candidate).includes("report.pdf")),
      "the model call naming the document",
    );
    const path = /\.downcity\/media\/tg%3A103\/[0-9a-f]{16}-report\.pdf/.exec(lastUserText(call))?.[0];
    expect(await readFile(join(daemon.rootDir, path as string))).toEqual(pdf);
  }, 60_000);

  test("every photo of an album of three reaches the model", async () => {
    const photos = [1, 2, 3].map((index) =>
      daemon.fake.addFile(pngNumber(index), `photos/album_${index}.jpg`),
    );
    for (const [index, photo] of photos.entries())
      daemon.fake.injectMessage({
        from: { id: 104 },
        ...(index === 0 ? { caption: "our trip" } : {}),
        media: { media_group_id: "13579", photo: [{ ...photo, width: 1, height: 1 }] },
      });
    await until(() => {
      const requests = JSON.stringify(daemon.model.requests);
      return [1, 2, 3].every((index) => requests.includes(dataUrl(pngNumber(index)))) || undefined;
    }, "all three photos in the model's requests");
    expect(
      daemon.fake
        .downloads()
        .filter((path) => path.startsWith("photos/album_"))
        .sort(),
    ).toEqual(["photos/album_1.jpg", "photos/album_2.jpg", "photos/album_3.jpg"]);
  }, 60_000);

  test("a sticker reaches the model as its emoji", async () => {
    daemon.fake.injectMessage({ from: { id: 105 }, sticker: true });
    await until(
      () => daemon.fake.sent().find((sent) => sent.chat_id === "105" && sent.text === "echo: [Sticker: 👍]"),
      "the answer to the sticker",
    );
  }, 60_000);
});
