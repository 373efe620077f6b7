/**
 * The complete public surface of @downcity/adapters-weixin: the WeChat (personal) channel adapter on
 * Tencent's iLink bot API (its default export is the adapter kind downcity.json names), and the QR
 * binding that `downcity channels login` and the web console run, and the offline and online checks of
 * a stored binding that `downcity doctor` makes.
 */
import { weixinChannelAdapter } from "./weixin-adapter.js";

export {
  type BindWeixinChannelOptions,
  bindWeixinChannel,
  type WeixinChannelBinding,
} from "./bind-weixin-channel.js";

export { type MappedWeixinMessage, mapWeixinMessage, weixinAttachmentKinds } from "./map-weixin-message.js";
export { verifyWeixinToken, type WeixinTokenVerdict } from "./verify-weixin-token.js";
export {
  contextTokenMaxAgeMs,
  createWeixinAdapter,
  weixinCapabilities,
  weixinChannelAdapter,
} from "./weixin-adapter.js";
export { sessionExpiredCode, WeixinApiError } from "./weixin-api-error.js";
export { decryptAesEcb, encryptAesEcb, parseAesKey } from "./weixin-cdn.js";
export {
  loadWeixinChannelOptions,
  loadWeixinChannels,
  type WeixinChannelConfig,
  weixinAdapterName,
  weixinChannelStateDir,
} from "./weixin-channel-config.js";
export {
  inspectWeixinCredentials,
  readWeixinCredentials,
  type WeixinCredentials,
  type WeixinCredentialsCheck,
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
