import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { AgentRuntime } from "../agent/agent-runtime.js";
import type { ChannelCapabilities } from "../channel/adapter/channel-adapter.js";
import type { ChannelHostOptions } from "../channel/host/channel-host.js";
import { downcityPaths, statePath } from "../paths/downcity-paths.js";
import type { ChannelFake, FakeIncomingFile, FakeSent } from "./channel-fake.js";
import { renderedChunkProblem } from "./rendered-chunk-checks.js";
import type { ScriptedModel } from "./scripted-model.js";

// How history and the model's notes refer to kept files: project-relative, under the media folder.
const mediaRef = statePath("media");

/** What the media and formatting cases borrow from `testChannelAdapter`'s world (fresh for each test). */
export interface MediaConformanceWorld<Fake extends ChannelFake> {
  channel: string;
  timeoutMs: number;
  root(): string;
  fake(): Fake;
  scripted(): ScriptedModel;
  runtime(): AgentRuntime;
  /** Starts the channel host (open access) with extra host options. */
  startHost(extra?: Partial<Pick<ChannelHostOptions, "media">>): Promise<void>;
  /** The capabilities the adapter declares (its own instance's). */
  capabilities(): ChannelCapabilities;
  until<T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T>;
}

// Real magic numbers: the host sniffs the bytes and trusts them over the platform's claim.
const samples: Record<FakeIncomingFile["kind"], Omit<FakeIncomingFile, "kind">> = {
  image: {
    mediaType: "image/png",
    name: "photo.png",
    data: Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex"),
  },
  audio: {
    mediaType: "audio/ogg",
    name: "song.ogg",
    data: Buffer.concat([Buffer.from("OggS\0\x02"), Buffer.alloc(90, 3)]),
  },
  voice: {
    mediaType: "audio/ogg",
    name: "voice.ogg",
    data: Buffer.concat([Buffer.from("OggS\0\x02"), Buffer.alloc(70, 5)]),
  },
  video: {
    mediaType: "video/mp4",
    name: "clip.mp4",
    data: Buffer.concat([Buffer.from("000000186674797069736f6d", "hex"), Buffer.alloc(80, 1)]),
  },
  file: {
    mediaType: "application/pdf",
    name: "report.pdf",
    data: Buffer.from("%PDF-1.4\n% conformance\n%%EOF\n"),
  },
};

/** Every file under `dir`, recursively (absent: none). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return nested.flat();
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A Markdown answer with every construct platforms render differently, and a code block longer than `max`. */
export function richMarkdownAnswer(max: number): { text: string; codeLines: string[] } {
  const codeLines: string[] = [];
  for (let index = 0; codeLines.join("\n").length < max * 1.5; index++)
    codeLines.push(`const line_${index} = "${"x".repeat(40)}" + ${index};`);
  const text = [
    "# Report",
    "",
    "**Bold** text, _italic_ text, `inline code` and a [link](https://example.com/a?b=1&c=<2>).",
    "",
    "| name | value |",
    "| --- | --- |",
    "| a & b | 1 < 2 |",
    "",
    "```ts",
    ...codeLines,
    "```",
    "",
    "> the end",
  ].join("\n");
  return { text, codeLines };
}

/** Helpers the cases share: the messages the platform received in a chat, the model's last user turn. */
function mediaHelpers<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>) {
  return {
    sentIn: (chatId: string) =>
      world
        .fake()
        .sent()
        .filter((sent) => sent.chatId === chatId),
    lastUserText: () =>
      world
        .scripted()
        .calls.at(-1)
        ?.messages.filter((message) => message.role === "user")
        .at(-1)?.text ?? "",
  };
}

/** Each declared kind: kept before the ack, given to the model, history by path. */
function mediaInCase<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  const { sentIn, lastUserText } = mediaHelpers(world);
  it("media in: each declared kind is kept under .downcity/media before the ack and given to the model", async () => {
    const kinds = (world.capabilities().attachmentsIn ?? []).filter(
      (kind): kind is FakeIncomingFile["kind"] => kind in samples,
    );
    if (kinds.length === 0) return;
    await world.startHost();
    for (const kind of kinds) {
      const sample = samples[kind];
      const chatId = `media-${kind}`;
      const caption = kind === "image" ? "" : `the ${kind}`;
      const delivered = await world
        .fake()
        .deliver({ chatType: "direct", chatId, userId: "u1", text: caption, files: [{ kind, ...sample }] });
      expect(delivered.acked, `${kind}: acknowledged`).toBe(true);
      // Acknowledged means kept: the platform will not send these bytes again.
      const stored = await Promise.all(
        (await filesUnder(downcityPaths(world.root()).mediaDir)).map(async (path) => ({
          path,
          bytes: await readFile(path),
        })),
      );
      expect(
        stored.some(({ bytes }) => bytes.equals(Buffer.from(sample.data))),
        `${kind}: its bytes are under .downcity/media when the platform is acknowledged`,
      ).toBe(true);
      await world.until(() => sentIn(chatId)[0], `the reply to the ${kind}`);
      const seen = lastUserText();
      if (kind === "image")
        expect(seen, "an image reaches the model as an image").toContain("[file image/png");
      else expect(seen, `a ${kind} reaches the model as a note with its path`).toContain(`${mediaRef}/`);
      const history = JSON.stringify(await world.runtime().history(`${world.channel}:${chatId}`).read());
      expect(history).toContain(`${mediaRef}/`);
      expect(history).not.toContain(Buffer.from(sample.data).toString("base64"));
    }
  });
}

/** A file over media.maxBytes: refused in the chat, the model told, the run answers. */
function oversizedCase<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  const { sentIn, lastUserText } = mediaHelpers(world);
  it("media in: a file over media.maxBytes is refused in the chat and the model is told; the run answers", async () => {
    const kind = (world.capabilities().attachmentsIn ?? []).find(
      (declared): declared is FakeIncomingFile["kind"] => declared in samples,
    );
    if (!kind) return;
    await world.startHost({ media: { maxBytes: 1024 } });
    const big = {
      kind,
      ...samples[kind],
      data: Buffer.concat([Buffer.from(samples[kind].data), Buffer.alloc(4096, 9)]),
    };
    const delivered = await world
      .fake()
      .deliver({ chatType: "direct", chatId: "media-big", userId: "u1", text: "big one", files: [big] });
    expect(delivered.acked).toBe(true);
    const refusal = await world.until(
      () => sentIn("media-big").find((sent) => /couldn.t download/i.test(sent.text)),
      "the visible refusal",
    );
    expect(refusal.text).toMatch(/too large|KB|MB|bytes/i);
    await world.until(
      () => sentIn("media-big").find((sent) => sent.text.includes("big one")),
      "the model's answer",
    );
    expect(lastUserText()).toContain("could not be downloaded");
  });
}

/** chat_send files reach the platform byte for byte. */
function mediaOutCase<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  const { sentIn } = mediaHelpers(world);
  it("media out: chat_send files reach the platform with their bytes intact", async () => {
    if (!world.capabilities().attachmentsOut) return;
    const image = samples.image.data;
    const report = Buffer.concat([Buffer.from(samples.file.data), Buffer.alloc(3000, 42)]);
    await mkdir(join(world.root(), "out"), { recursive: true });
    await writeFile(join(world.root(), "out", "chart.png"), image);
    await writeFile(join(world.root(), "out", "report.pdf"), report);
    world.scripted().push(
      {
        toolCalls: [
          {
            toolName: "chat_send",
            input: { text: "here you go", files: ["out/chart.png", "out/report.pdf"] },
          },
        ],
      },
      "sent",
    );
    await world.startHost();
    await world
      .fake()
      .deliver({ chatType: "direct", chatId: "media-out", userId: "u1", text: "send the files" });
    const files = await world.until(() => {
      const all = sentIn("media-out").flatMap((sent) => sent.files ?? []);
      return all.length >= 2 ? all : undefined;
    }, "both files at the platform");
    expect(files.map((file) => sha256(file.data)).sort()).toEqual([sha256(image), sha256(report)].sort());
  });
}

/** Rendered chunks valid for the platform, within its limit, nothing lost; the runtime note told the model. */
function formattingCase<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  const { sentIn } = mediaHelpers(world);
  it("formatting: what the platform receives is valid for it, chunked within its limit, nothing lost", async () => {
    const { format, maxTextLength } = world.capabilities();
    if (!format) return;
    const answer = richMarkdownAnswer(maxTextLength);
    world.scripted().push(answer.text);
    await world.startHost();
    await world.fake().deliver({ chatType: "direct", chatId: "format", userId: "u1", text: "report please" });
    const chunks = await world.until(() => {
      const sent = sentIn("format");
      return sent.some((message) => message.text.includes("the end")) ? sent : undefined;
    }, "the whole formatted answer");
    expect(chunks.length, "a code block longer than the limit takes several messages").toBeGreaterThan(1);
    // The model was told what this chat renders, its limit and whether files go out (the runtime note).
    const note = world
      .scripted()
      .calls.flatMap((call) => call.messages)
      .findLast((message) => message.text.startsWith("Runtime note for this turn:"))?.text;
    expect(note).toContain("- formatting: ");
    expect(note).toContain(`at most ${maxTextLength} characters`);
    expect(note).toContain(
      world.capabilities().attachmentsOut ? "chat_send can send project files" : "cannot receive files",
    );
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.text.length, `chunk ${index} within maxTextLength`).toBeLessThanOrEqual(maxTextLength);
      const problem = renderedChunkProblem(chunk, format);
      expect(
        problem,
        `chunk ${index} (${chunk.format ?? format}): ${chunk.text.slice(0, 200)}`,
      ).toBeUndefined();
    }
    const all = chunks.map((chunk: FakeSent) => chunk.text).join("\n");
    // Every code line arrives (escaped as the platform needs, so compared by its identifier).
    const lost = answer.codeLines.map((_line, index) => `line_${index} =`).filter((id) => !all.includes(id));
    expect(lost, "code lines lost in rendering or chunking").toEqual([]);
  });
}

/** A refused formatted message is resent once as plain text. */
function fallbackCase<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  const { sentIn } = mediaHelpers(world);
  it("formatting fallback: a message the platform refuses as formatted is resent once as plain text", async () => {
    const fake = world.fake();
    if (!world.capabilities().format || !fake.refuseNextFormatted) return;
    fake.refuseNextFormatted();
    world.scripted().push("**Important**: the deploy finished.");
    await world.startHost();
    await fake.deliver({ chatType: "direct", chatId: "fallback", userId: "u1", text: "status?" });
    const sent = await world.until(() => sentIn("fallback")[0], "the plain-text resend");
    expect(sent.format ?? "plain").toBe("plain");
    expect(sent.text).toContain("Important");
    expect(sent.text).toContain("the deploy finished");
    // Never lost, never doubled: a following message proves the outbox moved on.
    await fake.deliver({ chatType: "direct", chatId: "fallback", userId: "u1", text: "thanks" });
    await world.until(() => (sentIn("fallback").length === 2 ? true : undefined), "the next reply");
    expect(sentIn("fallback")).toHaveLength(2);
  });
}

/**
 * The media and formatting cases of the channel conformance suite, each gated by what the adapter
 * declares: `attachmentsIn` (each kind stored under `.downcity/media/` before the ack, given to the
 * model, an oversized one refused visibly), `attachmentsOut` (bytes intact), `format` and
 * `maxTextLength` (the platform receives valid output within its limit) and the plain-text fallback
 * when the fake can refuse formatted text.
 */
export function mediaConformanceCases<Fake extends ChannelFake>(world: MediaConformanceWorld<Fake>): void {
  mediaInCase(world);
  oversizedCase(world);
  mediaOutCase(world);
  formattingCase(world);
  fallbackCase(world);
}
