import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { createDaemonProject, type DaemonProject } from "@downcity/test-support";
import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cardMarkdown } from "../src/test/fake-im-messages.js";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "../src/test/fake-open-platform.js";

// A 1×1 PNG.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082",
  "hex",
);
const report = [
  "# Build report",
  "The build **failed** on [CI](https://ci.example/42).",
  "| step | result |\n|---|---|\n| lint | ok |\n| test | failed |",
  `\`\`\`ts\n${Array.from({ length: 400 }, (_, line) => `const value${line} = ${line}; // padding the block`).join("\n")}\n\`\`\``,
].join("\n\n");

// The project's media.maxBytes: every file the first tests send fits, the oversized ones do not.
const maxBytes = 64 * 1024;

type ChatPart = { type: string; text?: string; image_url?: { url: string } };
type ChatRequest = { messages: Array<{ role: string; content: string | ChatPart[] }> };

/** The last user message of a model request, as its parts. */
const lastUserParts = (request: Record<string, unknown>): ChatPart[] => {
  const content = (request as ChatRequest).messages
    .filter((message) => message.role === "user")
    .at(-1)?.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : (content ?? []);
};

// End to end: the built CLI starts a real daemon holding the SDK's long connection to the fake open platform;
// the model is a scripted OpenAI-compatible server that records what it was given.
describe("feishu through the daemon: images, posts and files reach the model; replies arrive as cards", () => {
  let project: DaemonProject;
  let fake: FakeOpenPlatform;
  let model: OpenAICompatibleServer;
  const dm = { chatType: "direct" as const, chatId: "oc_dm_ada", userId: "ou_ada" };

  beforeAll(async () => {
    project = await createDaemonProject("lark-rich");
    fake = await startFakeOpenPlatform();
    model = await startOpenAICompatibleServer({
      respond: (call) => {
        const text = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
        return text.includes("build report") ? report : `seen: ${text.slice(0, 40)}`;
      },
    });
    await project.init({
      modelUrl: model.url,
      channels: {
        lark: {
          adapter: "@downcity/adapters-feishu",
          appId: "${LARK_APP_ID}",
          appSecret: "${LARK_APP_SECRET}",
          domain: fake.domain,
          pingTimeoutSeconds: 5,
          access: { dm: "allowlist", allow: ["ou_ada"] },
        },
      },
      env: { LARK_APP_ID: fakeAppId, LARK_APP_SECRET: fakeAppSecret },
      settings: { media: { maxBytes } },
    });
    await project.json(["start", "--json"]);
    await until(() => fake.openConnections() > 0, "the long connection");
    // The budget covers rebuilding the CLI and what it runs when their sources changed.
  }, 900_000);

  afterAll(async () => {
    await project?.dispose();
    await model?.close();
    await fake?.close();
  });

  const answered = (messageId: string) =>
    until(
      () => fake.messages().find((message) => message.replyTo === messageId),
      `the answer to ${messageId}`,
    );
  /**
   * The text of a reply to `messageId` that `matches`, once it arrived: its card's Markdown with `<` and
   * `>` as the client shows them (the card writes them `&#60;`/`&#62;`).
   */
  const replyMatching = (messageId: string, matches: RegExp) =>
    until(
      () =>
        fake
          .messages()
          .filter((message) => message.replyTo === messageId)
          .map((message) =>
            (cardMarkdown(message.content) ?? "").replaceAll("&#60;", "<").replaceAll("&#62;", ">"),
          )
          .find((text) => matches.test(text)),
      `a reply to ${messageId} matching ${matches}`,
    );
  /** Whether a file with these bytes was kept under .downcity/media/ (named by its sha256 prefix). */
  const kept = async (bytes: Uint8Array) => {
    const prefix = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
    const files = await readdir(join(project.dir, ".downcity", "media"), { recursive: true }).catch(() => []);
    return files.some((file) => String(file).split("/").at(-1)?.startsWith(prefix));
  };

  test("an image with text and a post with an image and a code block reach the model as image parts and text", async () => {
    const first = await fake.deliverMessage({
      ...dm,
      messageType: "post",
      content: {
        title: "",
        content: [[{ tag: "text", text: "what is in this picture?" }], [{ tag: "img", image_key: "img_1" }]],
      },
      resources: { img_1: { bytes: png, mediaType: "image/png", type: "image" } },
    });
    expect(first.acked).toBe(true);
    await answered(first.messageId);
    const firstParts = lastUserParts(model.requests.at(-1) ?? {});
    expect(firstParts.map((part) => part.type)).toContain("image_url");
    expect(firstParts.find((part) => part.type === "image_url")?.image_url?.url).toBe(
      `data:image/png;base64,${png.toString("base64")}`,
    );
    expect(firstParts.map((part) => part.text ?? "").join("")).toContain("what is in this picture?");

    const second = await fake.deliverMessage({
      ...dm,
      messageType: "post",
      content: {
        title: "Failing test",
        content: [
          [{ tag: "text", text: "it fails here:" }],
          [{ tag: "code_block", language: "TypeScript", text: "expect(add(1, 2)).toBe(4);\n" }],
          [{ tag: "img", image_key: "img_2" }],
        ],
      },
      resources: { img_2: { bytes: png, mediaType: "image/png", type: "image" } },
    });
    await answered(second.messageId);
    const secondParts = lastUserParts(model.requests.at(-1) ?? {});
    expect(secondParts.filter((part) => part.type === "image_url")).toHaveLength(1);
    expect(secondParts.map((part) => part.text ?? "").join("")).toContain(
      "```typescript\nexpect(add(1, 2)).toBe(4);\n```",
    );
    // History keeps a path under .downcity/media, never the bytes.
    const history = await readFile(
      join(
        project.dir,
        ".downcity",
        "context",
        encodeURIComponent("lark:oc_dm_ada"),
        "messages",
        "messages.jsonl",
      ),
      "utf8",
    ).catch(() => "");
    expect(history).not.toContain(png.toString("base64"));
  }, 90_000);

  test("a file is stored and given to the model as a note with its path", async () => {
    const sent = await fake.deliverMessage({
      ...dm,
      messageType: "file",
      content: { file_key: "file_1", file_name: "build.log" },
      resources: {
        file_1: {
          bytes: Buffer.from("error: add is broken\n".repeat(2000)),
          mediaType: "text/plain",
          type: "file",
        },
      },
    });
    await answered(sent.messageId);
    const text = lastUserParts(model.requests.at(-1) ?? {})
      .map((part) => part.text ?? "")
      .join("");
    const path = /\.downcity\/media\/[^\s)\]]*build\.log/.exec(text)?.[0];
    expect(path).toBeDefined();
    expect(await readFile(join(project.dir, path ?? ""), "utf8")).toBe("error: add is broken\n".repeat(2000));
  }, 90_000);

  test("a long Markdown answer arrives as valid cards, and the Typing reaction is added and then removed", async () => {
    const question = await fake.deliver({ ...dm, text: "send the build report" });
    const messageId = `om_${question.eventId}`;
    await until(
      () => fake.reactions().find((reaction) => reaction.messageId === messageId),
      "the Typing reaction",
    );
    const cards = await until(() => {
      const replies = fake.messages().filter((message) => message.replyTo === messageId);
      return replies.length > 1 && replies.at(-1)?.content ? replies : undefined;
    }, "the card replies");
    await until(
      () =>
        fake
          .reactions()
          .find((reaction) => reaction.messageId === messageId && reaction.removedAt !== undefined),
      "the reaction removed",
    );
    // Every chunk is a card (the fake refuses invalid card JSON); the fence is closed and reopened.
    await until(
      () =>
        fake
          .messages()
          .filter((message) => message.replyTo === messageId)
          .map((message) => cardMarkdown(message.content) ?? "")
          .join("")
          .includes("value399"),
      "every chunk",
    );
    const replies = fake.messages().filter((message) => message.replyTo === messageId);
    expect(replies.every((message) => message.msgType === "interactive")).toBe(true);
    const markdown = replies.map((message) => cardMarkdown(message.content) ?? "");
    expect(markdown[0]).toMatch(/^# Build report/);
    expect(markdown[0]).toContain("[CI](https://ci.example/42)");
    expect(markdown[0]).toContain("| test | failed |");
    for (const chunk of markdown) expect((chunk.match(/^```/gm) ?? []).length % 2).toBe(0);
    expect(cards.length).toBeGreaterThan(1);
    const reaction = fake.reactions().find((candidate) => candidate.messageId === messageId);
    expect(reaction?.emojiType).toBe("Typing");
  }, 90_000);

  test("an image over media.maxBytes gets a reply naming it and the limit; the model is told, nothing is kept", async () => {
    const big = Buffer.concat([png, Buffer.alloc(100 * 1024, 7)]);
    const before = model.calls.length;
    const sent = await fake.deliverMessage({
      ...dm,
      messageType: "post",
      content: {
        title: "",
        content: [
          [{ tag: "text", text: "look at my holiday photo" }],
          [{ tag: "img", image_key: "img_big" }],
        ],
      },
      resources: { img_big: { bytes: big, mediaType: "image/png", type: "image" } },
    });
    expect(sent.acked).toBe(true);
    const refusal = await replyMatching(sent.messageId, /couldn.t download/);
    expect(refusal).toMatch(/^I couldn.t download that file: an image: too large, (100 KB > |over )64 KB$/);
    // The run goes on with the text and a note in place of the image, and answers.
    await replyMatching(sent.messageId, /^seen: /);
    expect(model.calls.length).toBeGreaterThan(before);
    const parts = lastUserParts(model.requests.at(-1) ?? {});
    expect(parts.map((part) => part.type)).not.toContain("image_url");
    const text = parts.map((part) => part.text ?? "").join("");
    expect(text).toContain("look at my holiday photo");
    expect(text).toMatch(
      /The user sent an image that could not be downloaded: too large, (100 KB > |over )64 KB/,
    );
    expect(await kept(big)).toBe(false);
  }, 90_000);

  test("a file alone over media.maxBytes is refused visibly, and the model answers the note", async () => {
    const log = Buffer.from("error: add is broken again\n".repeat(4000));
    const before = model.calls.length;
    const sent = await fake.deliverMessage({
      ...dm,
      messageType: "file",
      content: { file_key: "file_big", file_name: "huge.log" },
      resources: { file_big: { bytes: log, mediaType: "text/plain", type: "file" } },
    });
    const refusal = await replyMatching(sent.messageId, /couldn.t download/);
    expect(refusal).toMatch(/^I couldn.t download that file: huge\.log: too large, (105 KB > |over )64 KB$/);
    await replyMatching(sent.messageId, /^seen: /);
    expect(model.calls.length).toBeGreaterThan(before);
    const text = lastUserParts(model.requests.at(-1) ?? {})
      .map((part) => part.text ?? "")
      .join("");
    expect(text).toContain('"huge.log" that could not be downloaded: too large');
    expect(await kept(log)).toBe(false);
    // The file kept before is still there: the refusal removed nothing.
    expect(await kept(Buffer.from("error: add is broken\n".repeat(2000)))).toBe(true);
  }, 90_000);
});
