import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { llmConfigSchema } from "../config/config-schema.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createScriptedTranscriptionModel } from "../test/scripted-transcription-model.js";
import { transcriptPathOf } from "./voice-transcript.js";

const temp = useTempDir("dc-voice-");
// The first page header of an Ogg stream: what a Telegram voice note starts with.
const ogg = Buffer.concat([Buffer.from("OggS\0\x02", "latin1"), Buffer.alloc(58, 7)]);
const voicePath = ".downcity/media/tg%3A1/abc-voice.ogg";
const voice = {
  kind: "voice" as const,
  mediaType: "audio/ogg",
  name: "voice.ogg",
  size: ogg.length,
  durationSeconds: 4,
  path: voicePath,
};
// The temporary folder is shared by the tests: each starts without a kept transcript.
const storeVoice = async () => {
  await mkdir(join(temp.path, ".downcity/media/tg%3A1"), { recursive: true });
  await writeFile(join(temp.path, voicePath), ogg);
  await rm(transcriptPathOf(join(temp.path, voicePath)), { force: true });
};
const lastUserText = (scripted: ReturnType<typeof createScriptedModel>, call: number) =>
  scripted.calls[call]?.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";

describe("voice notes and audio files", () => {
  it("are transcribed before the turn, marked as a machine transcript with the path kept, once per file", async () => {
    await storeVoice();
    const scripted = createScriptedModel([], { fallback: "heard you" });
    const transcription = createScriptedTranscriptionModel({ text: "buy oat milk", language: "en" });
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      transcription: transcription.model,
    });
    try {
      await runtime.send({ contextId: "tg:1", text: "", attachments: [voice] });
      await runtime.send({ contextId: "tg:1", text: "and eggs?" });
    } finally {
      await runtime.close();
    }
    const first = lastUserText(scripted, 0);
    expect(first).toContain("Machine transcript (speech-to-text, language en; may contain errors)");
    expect(first).toContain("buy oat milk");
    expect(first).toContain(`saved at ${voicePath}`);
    expect(first).toContain("4 s");
    // The second turn's window holds the voice note again: its transcript is read from beside the file.
    const again = scripted.calls[1]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(again).toContain("buy oat milk");
    expect(transcription.calls).toHaveLength(1);
    expect(Buffer.from(transcription.calls[0]?.audio ?? [])).toEqual(ogg);
    const kept = JSON.parse(await readFile(transcriptPathOf(join(temp.path, voicePath)), "utf8"));
    expect(kept).toMatchObject({ text: "buy oat milk" });
    // History keeps the reference, never the transcript or the bytes.
    const [stored] = await runtime.history("tg:1").read();
    expect(JSON.stringify(stored)).not.toContain("buy oat milk");
  });

  it("without a transcription model are a note with the path and the duration", async () => {
    await storeVoice();
    const scripted = createScriptedModel([], { fallback: "ok" });
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    try {
      await runtime.send({ contextId: "tg:1", text: "", attachments: [voice] });
    } finally {
      await runtime.close();
    }
    const text = lastUserText(scripted, 0);
    expect(text).toContain(`Voice message "voice.ogg", audio/ogg`);
    expect(text).toContain("4 s");
    expect(text).toContain(`saved at ${voicePath}`);
    expect(text).not.toContain("transcript");
  });

  it("that fail to transcribe still reach the model as a note saying why; the run answers", async () => {
    await storeVoice();
    const scripted = createScriptedModel([], { fallback: "ok" });
    const transcription = createScriptedTranscriptionModel(new Error("speech server down"));
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      transcription: transcription.model,
    });
    try {
      const result = await runtime.send({ contextId: "tg:1", text: "", attachments: [voice] });
      expect(result.text).toBe("ok");
    } finally {
      await runtime.close();
    }
    const text = lastUserText(scripted, 0);
    expect(text).toContain(`saved at ${voicePath}`);
    expect(text).toMatch(/not transcribed: transcription failed: .*speech server down/);
  });
});

describe("llm.transcription", () => {
  it("is a model id on providers with a transcription API; Anthropic's is refused naming the field", () => {
    expect(
      llmConfigSchema.parse({ provider: "openai-compatible", model: "m", transcription: "whisper-1" })
        .transcription,
    ).toBe("whisper-1");
    const refused = llmConfigSchema.safeParse({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      transcription: "whisper-1",
    });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      path: ["transcription"],
      message: expect.stringContaining("Anthropic has no transcription API"),
    });
    expect(llmConfigSchema.safeParse({ provider: "openai", model: "m", transcription: "" }).success).toBe(
      false,
    );
  });
});
