/**
 * The complete public surface of @downcity/adapters-feishu: the Feishu/Lark channel adapter (its default export
 * is the adapter kind downcity.json names) and the pieces it is built from.
 */
import { feishuChannelAdapter } from "./feishu-adapter.js";

export {
  createFeishuAdapter,
  type FeishuAdapter,
  feishuCapabilities,
  feishuChannelAdapter,
} from "./feishu-adapter.js";
export { type FeishuOptions, feishuOptionsSchema } from "./feishu-options.js";
export { sendUuid } from "./feishu-sender.js";
export { type FeishuMessageEvent, mapFeishuMessage } from "./map-feishu-message.js";
export { redactSecrets } from "./sdk-logger.js";
export { checkLarkSignature, larkSignature } from "./webhook-signature.js";

export default feishuChannelAdapter;
