/**
 * The complete public surface of @downcity/core/test: scripted stand-ins for the LLM so any
 * package can test agent runs without a network. Never use these in production.
 */
export {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  ScriptedHttpError,
  startOpenAICompatibleServer,
} from "./test/openai-compatible-server.js";
export { createScriptedModel, type ScriptedModel } from "./test/scripted-model.js";
export type { ScriptedCall, ScriptedReply, ScriptedToolCall, ScriptedTurn } from "./test/scripted-turn.js";
export {
  type ChannelFake,
  type FakeIncoming,
  type FakeSent,
  type TestChannelAdapterOptions,
  testChannelAdapter,
} from "./test/channel-conformance.js";
