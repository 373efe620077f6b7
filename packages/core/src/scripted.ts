/**
 * `@downcity/core/scripted`: the scripted stand-ins for the LLM alone (a mock model and an
 * OpenAI-compatible server on 127.0.0.1), without any test framework, for demos and examples.
 */
export {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  ScriptedHttpError,
  startOpenAICompatibleServer,
} from "./test/openai-compatible-server.js";
export { createScriptedModel, type ScriptedModel } from "./test/scripted-model.js";
export type { ScriptedCall, ScriptedReply, ScriptedToolCall, ScriptedTurn } from "./test/scripted-turn.js";
