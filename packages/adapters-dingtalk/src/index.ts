/**
 * The complete public surface of @downcity/adapters-dingtalk: the DingTalk robot channel adapter (its default
 * export is the adapter kind downcity.json names) and the pieces it is built from.
 */
import { dingtalkChannelAdapter } from "./dingtalk-adapter.js";

export { createDingtalkAdapter, dingtalkCapabilities, dingtalkChannelAdapter } from "./dingtalk-adapter.js";
export { DingtalkApiError } from "./dingtalk-api-error.js";
export { type DingtalkOptions, dingtalkOptionsSchema } from "./dingtalk-options.js";
export { markdownTitle } from "./dingtalk-sender.js";
export { createDingtalkTokenSource, type DingtalkTokenSource } from "./dingtalk-token-source.js";
export { type MappedRobotMessage, mapDingtalkMessage, robotMessageSchema } from "./map-dingtalk-message.js";

export default dingtalkChannelAdapter;
