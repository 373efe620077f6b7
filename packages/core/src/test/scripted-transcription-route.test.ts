import { expect, it } from "vitest";
import { startOpenAICompatibleServer } from "./openai-compatible-server.js";

it("the scripted server answers OpenAI's /audio/transcriptions multipart request and records the upload", async () => {
  const server = await startOpenAICompatibleServer({
    apiKey: "sk-test",
    transcribe: (request) => ({
      text: `heard ${request.audio.byteLength} bytes`,
      language: "english",
      duration: 2.5,
    }),
  });
  try {
    const audio = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 1, 2, 3]);
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new File([audio], "audio.ogg", { type: "audio/ogg" }), "audio.ogg");
    form.append("response_format", "verbose_json");
    const post = (body: FormData | string) =>
      fetch(`${server.url}/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-test" },
        body,
      });
    const response = await post(form);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "heard 7 bytes", language: "english", duration: 2.5 });
    expect(server.transcriptions).toHaveLength(1);
    expect(server.transcriptions[0]).toMatchObject({
      model: "whisper-1",
      mediaType: "audio/ogg",
      fileName: "audio.ogg",
      responseFormat: "verbose_json",
    });
    expect([...(server.transcriptions[0]?.audio ?? [])]).toEqual([...audio]);
    // Not a form: a clear 400, nothing recorded.
    expect((await post("not a form")).status).toBe(400);
    expect(server.transcriptions).toHaveLength(1);
  } finally {
    await server.close();
  }
});
