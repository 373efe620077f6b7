import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { experimental_transcribe as transcribe } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "./create-model.js";

// An Ogg page header: enough for the AI SDK to know the bytes are audio/ogg.
const ogg = Buffer.concat([Buffer.from("OggS\0\x02", "latin1"), Buffer.alloc(40, 1)]);

describe("llm.transcription", () => {
  let server: OpenAICompatibleServer;
  let dir: string;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer({
      apiKey: "sk-local",
      respond: () => "ok",
      transcribe: (request) => ({ text: `transcribed by ${request.model}`, duration: 3 }),
    });
    dir = await mkdtemp(join(tmpdir(), "dc-transcription-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const choiceFor = async (llm: Record<string, unknown>) => {
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ llm }));
    const { config } = await loadConfig(dir, { env: { LOCAL_KEY: "sk-local" } });
    return createModel(config.llm, {});
  };

  it.each(["openai-compatible", "openai"])(
    "on %s posts the audio to the server's /audio/transcriptions with the configured model",
    async (provider) => {
      const choice = await choiceFor({
        provider,
        model: "scripted",
        baseURL: server.url,
        apiKey: "${LOCAL_KEY}",
        transcription: "whisper-large-v3",
      });
      if (!choice.transcription) throw new Error("no transcription model was built");
      const before = server.transcriptions.length;
      const result = await transcribe({ model: choice.transcription, audio: ogg });
      expect(result.text).toBe("transcribed by whisper-large-v3");
      expect(result.durationInSeconds).toBe(3);
      const request = server.transcriptions[before];
      expect(request).toMatchObject({ model: "whisper-large-v3", mediaType: "audio/ogg" });
      expect(Buffer.from(request?.audio ?? [])).toEqual(ogg);
    },
  );

  it("is absent without the field, and refused for Anthropic with the field named", async () => {
    const choice = await choiceFor({ provider: "openai-compatible", model: "scripted", baseURL: server.url });
    expect(choice.model).toBeDefined();
    expect(choice.transcription).toBeUndefined();
    await expect(
      choiceFor({
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        apiKey: "k",
        transcription: "whisper-1",
      }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "llm.transcription",
      message: expect.stringContaining("Anthropic has no transcription API"),
    });
  });
});
