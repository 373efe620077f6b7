/**
 * The complete public surface of @downcity/adapters-wecom: the WeCom (企业微信) intelligent-bot channel
 * adapter (its default export is the adapter kind downcity.json names) and the pieces it is built from.
 */
import { wecomChannelAdapter } from "./wecom-adapter.js";

export {
  mapWecomMessage,
  type WecomMedia,
  type WecomMessage,
  wecomAttachmentKinds,
  wecomMessageSchema,
} from "./map-wecom-message.js";
export {
  createWecomAdapter,
  wecomCapabilities,
  wecomChannelAdapter,
  wecomReplyWindowMs,
} from "./wecom-adapter.js";
export { type WecomOptions, wecomDefaultWsUrl, wecomOptionsSchema } from "./wecom-options.js";
export { wecomRateLimitCode } from "./wecom-send-error.js";
export { wecomSentRecordTtlMs } from "./wecom-sent-record.js";

export default wecomChannelAdapter;
