/**
 * The complete public surface of @downcity/adapters-weixin: the WeChat (personal) channel adapter on
 * Tencent's iLink bot API (its default export is the adapter kind downcity.json names), and the QR
 * binding that `downcity channels login` runs.
 */
import { weixinChannelAdapter } from "./weixin-adapter.js";

export { type MappedWeixinMessage, mapWeixinMessage, weixinAttachmentKinds } from "./map-weixin-message.js";
export {
  contextTokenMaxAgeMs,
  createWeixinAdapter,
  weixinCapabilities,
  weixinChannelAdapter,
} from "./weixin-adapter.js";
export { sessionExpiredCode, WeixinApiError } from "./weixin-api-error.js";
export { decryptAesEcb, encryptAesEcb, parseAesKey } from "./weixin-cdn.js";
export {
  readWeixinCredentials,
  type WeixinCredentials,
  weixinCredentialsFile,
  writeWeixinCredentials,
} from "./weixin-credentials.js";
export {
  requestWeixinQrCode,
  type WaitForBindingOptions,
  type WeixinBindingResult,
  type WeixinBindingStatus,
  type WeixinQrCode,
  waitForWeixinBinding,
} from "./weixin-login.js";
export { type WeixinOptions, weixinDefaultBaseUrl, weixinOptionsSchema } from "./weixin-options.js";
export { rebindAdvice } from "./weixin-poller.js";

export default weixinChannelAdapter;
