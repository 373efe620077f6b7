/** Test helpers of @downcity/adapters-weixin: the fake iLink bot server (API, CDN and QR binding) on 127.0.0.1. */
export type { FakeWeixinCdn } from "./fake-weixin-cdn.js";
export type { FakeWeixinLogin } from "./fake-weixin-login.js";
export {
  type FakeWeixinIncoming,
  type FakeWeixinPlatform,
  fakeWeixinBotName,
  fakeWeixinToken,
  startFakeWeixinPlatform,
} from "./fake-weixin-platform.js";
