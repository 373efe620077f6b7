import type { IncomingMessage } from "node:http";

/** One `POST /audio/transcriptions` the scripted server received. */
export interface ScriptedTranscriptionRequest {
  model: string;
  /** The uploaded file: its bytes, type and name as the client sent them. */
  audio: Uint8Array;
  mediaType: string;
  fileName: string;
  responseFormat?: string;
}

/** What the scripted server answers a transcription request with. */
export type ScriptedTranscriptionReply = string | { text: string; language?: string; duration?: number };

/**
 * Reads OpenAI's transcription request (multipart form: `model`, `file`, optional
 * `response_format`) with the platform's own form parser; undefined when it is not that shape.
 */
export async function readTranscriptionRequest(
  request: IncomingMessage,
): Promise<ScriptedTranscriptionRequest | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const form = await new Request("http://127.0.0.1/audio/transcriptions", {
    method: "POST",
    headers: { "content-type": request.headers["content-type"] ?? "" },
    body: Buffer.concat(chunks),
  })
    .formData()
    .catch(() => undefined);
  const file = form?.get("file");
  const model = form?.get("model");
  if (!form || !(file instanceof File) || typeof model !== "string") return undefined;
  const responseFormat = form.get("response_format");
  return {
    model,
    audio: new Uint8Array(await file.arrayBuffer()),
    mediaType: file.type,
    fileName: file.name,
    ...(typeof responseFormat === "string" ? { responseFormat } : {}),
  };
}

/** The JSON body OpenAI answers a transcription with (`json` and `verbose_json` share these fields). */
export function transcriptionResponseBody(reply: ScriptedTranscriptionReply): Record<string, unknown> {
  const transcript = typeof reply === "string" ? { text: reply } : reply;
  return {
    text: transcript.text,
    ...(transcript.language ? { language: transcript.language } : {}),
    ...(transcript.duration === undefined ? {} : { duration: transcript.duration }),
  };
}
