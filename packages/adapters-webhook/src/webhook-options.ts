import { z } from "zod";

/** The options of one webhook channel instance (its fields in `downcity.json` `channels.<name>`). */
export const webhookOptionsSchema = z.object({
  /** Where the adapter's own HTTP listener binds (not the daemon's token-protected API). */
  listen: z.object(
    {
      host: z
        .string({ error: 'must be a host name or IP address, e.g. "127.0.0.1"' })
        .min(1, { error: 'must not be empty: use "127.0.0.1" (local) or "0.0.0.0" (all interfaces)' })
        .default("127.0.0.1"),
      port: z
        .number({ error: "must be a port number from 0 to 65535, e.g. 8787" })
        .int({ error: "must be a whole number, e.g. 8787" })
        .min(0, { error: "must be from 0 to 65535" })
        .max(65535, { error: "must be from 0 to 65535" }),
    },
    { error: 'must be an object like { "host": "127.0.0.1", "port": 8787 }' },
  ),
  /** Where replies are POSTed. */
  url: z.url({
    protocol: /^https?$/,
    error:
      'must be an http:// or https:// URL where replies are POSTed, e.g. "https://bridge.example.com/replies"',
  }),
  /** The shared HMAC-SHA256 key that signs both directions. */
  secret: z
    .string({ error: 'must be a string: generate one with "openssl rand -hex 32"' })
    .min(16, { error: 'must be at least 16 characters: generate one with "openssl rand -hex 32"' }),
  /** Largest accepted request body in bytes; larger requests get 413. */
  maxBodyBytes: z
    .number({ error: "must be a number of bytes, e.g. 1048576" })
    .int({ error: "must be a whole number of bytes" })
    .min(1024, { error: "must be at least 1024" })
    .max(16 * 1024 * 1024, { error: "must be at most 16777216 (16 MiB)" })
    .default(1024 * 1024),
  /** How long one outbound POST may take before it counts as a (retryable) failure. */
  sendTimeoutMs: z
    .number({ error: "must be a number of milliseconds, e.g. 10000" })
    .int({ error: "must be a whole number of milliseconds" })
    .min(100, { error: "must be at least 100" })
    .max(300_000, { error: "must be at most 300000 (5 minutes)" })
    .default(10_000),
  /** The receiver wants signed `{"type":"typing"}` posts while a run for a chat is in progress [false]. */
  typingEvents: z.boolean({ error: "must be true or false" }).optional(),
});

/** Webhook channel options as written (defaults not yet applied). */
export type WebhookOptionsInput = z.input<typeof webhookOptionsSchema>;
/** Validated webhook channel options. */
export type WebhookOptions = z.output<typeof webhookOptionsSchema>;
