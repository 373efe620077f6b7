/**
 * `@downcity/core/scripted`: the scripted stand-ins for the LLM (a mock language model and a real
 * OpenAI-compatible server on 127.0.0.1), for tests, demos and examples without a network or a
 * key. Their one home: `@downcity/core/test` holds the conformance suites only. Loads no test
 * framework.
 */
export {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  ScriptedHttpError,
  startOpenAICompatibleServer,
} from "./test/openai-compatible-server.js";
export { createScriptedModel, type ScriptedModel } from "./test/scripted-model.js";
export {
  createScriptedTranscriptionModel,
  type ScriptedTranscript,
  type ScriptedTranscriptionCall,
  type ScriptedTranscriptionModel,
} from "./test/scripted-transcription-model.js";
export type {
  ScriptedTranscriptionReply,
  ScriptedTranscriptionRequest,
} from "./test/scripted-transcription-route.js";
export type { ScriptedCall, ScriptedReply, ScriptedToolCall, ScriptedTurn } from "./test/scripted-turn.js";
