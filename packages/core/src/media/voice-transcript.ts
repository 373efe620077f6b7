import { readFile } from "node:fs/promises";
import { z } from "zod";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { AudioTranscriber, AudioTranscript } from "./audio-transcriber.js";

const transcriptFileSchema = z.object({
  text: z.string(),
  language: z.string().optional(),
  durationSeconds: z.number().optional(),
});

/** Audio the transcriber takes: voice notes and audio files (not video). */
export const isTranscribable = (kind: string | undefined, mediaType: string): boolean =>
  kind === "voice" || kind === "audio" || mediaType.startsWith("audio/");

/** Where a stored file's transcript is kept: beside it, so every later turn reads it instead of paying again. */
export const transcriptPathOf = (absolutePath: string): string => `${absolutePath}.transcript.json`;

/**
 * The transcript of a stored audio file: read from beside the file, else made with `transcribe`
 * and kept there (atomically). A failure is returned as its reason, never thrown, and not kept, so
 * a later turn tries again.
 */
export async function voiceTranscript(
  absolutePath: string,
  transcribe: AudioTranscriber,
  signal?: AbortSignal,
): Promise<AudioTranscript | { error: string }> {
  const sidecar = transcriptPathOf(absolutePath);
  const kept = await readFile(sidecar, "utf8")
    .then((text) => transcriptFileSchema.safeParse(JSON.parse(text)).data)
    .catch(() => undefined);
  if (kept) return kept;
  let audio: Buffer;
  try {
    audio = await readFile(absolutePath);
  } catch {
    return { error: "the file is no longer there" };
  }
  try {
    const transcript = await transcribe(audio, signal);
    await writeFileAtomic(sidecar, `${JSON.stringify(transcript)}\n`).catch(() => {});
    return transcript;
  } catch (error) {
    return { error: `transcription failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
