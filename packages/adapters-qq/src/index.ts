/**
 * The complete public surface of @downcity/adapters-qq: the QQ bot channel adapter (its default export is the
 * adapter kind downcity.json names) and the pieces it is built from.
 */
import { qqChannelAdapter } from "./qq-adapter.js";

export { type MappedQqEvent, mapQqEvent, qqMessageEventTypes } from "./map-qq-event.js";
export { createQqAdapter, type QqAdapter, qqCapabilities, qqChannelAdapter } from "./qq-adapter.js";
export { QqApiError } from "./qq-api-error.js";
export { groupAndC2cIntent, type QqOptions, qqOptionsSchema } from "./qq-options.js";
export { qqMessageSeq, qqReplyWindowMs } from "./qq-sender.js";
export { answerQqValidation, qqSign, qqSigningKeys, verifyQqSignature } from "./qq-signature.js";
export { createQqTokenSource, type QqTokenSource } from "./qq-token-source.js";

export default qqChannelAdapter;
