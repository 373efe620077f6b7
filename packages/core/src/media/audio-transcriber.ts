import { type TranscriptionModel, experimental_transcribe as transcribe } from "ai";

/** An AI SDK transcription model object (not a global-provider id string). */
export type TranscriptionModelObject = Exclude<TranscriptionModel, string>;

/** What a transcription model heard in an audio file. */
export interface AudioTranscript {
  text: string;
  /** ISO-639-1 code, when the model says. */
  language?: string;
  durationSeconds?: number;
}

/** Turns audio bytes into text (voice notes and audio files people send, before the turn). */
export type AudioTranscriber = (audio: Uint8Array, signal?: AbortSignal) => Promise<AudioTranscript>;

/** Longest a transcription may take before the file is given to the model as a note instead. */
const transcriptionTimeoutMs = 120_000;

/**
 * A transcriber over an AI SDK transcription model (`llm.transcription`: OpenAI's `whisper-1` or
 * `gpt-4o-mini-transcribe`, or the same API on an OpenAI-compatible server). The AI SDK detects
 * the audio type from the bytes; one retry covers a transient failure.
 */
export function createAudioTranscriber(model: TranscriptionModelObject): AudioTranscriber {
  return async (audio, signal) => {
    const timeout = AbortSignal.timeout(transcriptionTimeoutMs);
    const result = await transcribe({
      model,
      audio,
      maxRetries: 1,
      abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return {
      text: result.text.trim(),
      ...(result.language ? { language: result.language } : {}),
      ...(result.durationInSeconds === undefined ? {} : { durationSeconds: result.durationInSeconds }),
    };
  };
}
