import { MockTranscriptionModelV3 } from "ai/test";

/** One audio file a scripted transcription model was asked to transcribe. */
export interface ScriptedTranscriptionCall {
  index: number;
  /** The audio's bytes as the model received them. */
  audio: Uint8Array;
  mediaType: string;
}

/** What a scripted transcription answers: the text, or an error to fail the call with. */
export type ScriptedTranscript =
  | string
  | Error
  | { text: string; language?: string; durationSeconds?: number };

/** A transcription model for tests (over MockTranscriptionModelV3) that records every call. */
export interface ScriptedTranscriptionModel {
  model: MockTranscriptionModelV3;
  calls: ScriptedTranscriptionCall[];
}

/**
 * Creates a scripted transcription model: each call is answered by `respond` (a fixed transcript,
 * or a function of the call), so voice notes can be tested without a speech model.
 */
export function createScriptedTranscriptionModel(
  respond: ScriptedTranscript | ((call: ScriptedTranscriptionCall) => ScriptedTranscript),
): ScriptedTranscriptionModel {
  const calls: ScriptedTranscriptionCall[] = [];
  const model = new MockTranscriptionModelV3({
    provider: "scripted",
    modelId: "scripted-transcribe",
    doGenerate: async (options) => {
      const audio = typeof options.audio === "string" ? Buffer.from(options.audio, "base64") : options.audio;
      const call = { index: calls.length, audio, mediaType: options.mediaType };
      calls.push(call);
      const answer = typeof respond === "function" ? respond(call) : respond;
      if (answer instanceof Error) throw answer;
      const transcript = typeof answer === "string" ? { text: answer } : answer;
      return {
        text: transcript.text,
        segments: [],
        language: transcript.language,
        durationInSeconds: transcript.durationSeconds,
        warnings: [],
        response: { timestamp: new Date(), modelId: "scripted-transcribe" },
      };
    },
  });
  return { model, calls };
}
