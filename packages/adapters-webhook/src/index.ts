/**
 * The complete public surface of @downcity/adapters-webhook: a generic signed HTTP channel.
 * The default export is the channel kind the daemon loads; the named exports serve embedders
 * and the senders and receivers that talk to it.
 */
export { parseRetryAfter } from "./retry-after.js";
export {
  createWebhookAdapter,
  type WebhookAdapter,
  webhookCapabilities,
  webhookChannelAdapter,
} from "./webhook-adapter.js";
export { toChannelEvent, type WebhookEvent, webhookEventSchema } from "./webhook-event.js";
export { type WebhookOptions, type WebhookOptionsInput, webhookOptionsSchema } from "./webhook-options.js";
export { signWebhookBody, verifyWebhookSignature, webhookSignatureHeader } from "./webhook-signature.js";

import { webhookChannelAdapter } from "./webhook-adapter.js";
export default webhookChannelAdapter;
