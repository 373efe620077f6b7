import type { Logger } from "@downcity/core";
import type { Logger as LarkLogger } from "@larksuiteoapi/node-sdk";

/** Replaces every copy of a secret in `text` with three stars. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) if (secret.length >= 4) redacted = redacted.split(secret).join("***");
  // Tenant tokens and long-connection tickets never belong in a log line either.
  return redacted.replace(/\b(t-[\w-]{8,}|Bearer\s+[^\s,;"']+|ticket=[^&\s]+)/g, "***");
}

function line(parts: unknown[], secrets: readonly string[]): string {
  const text = parts
    .map((part) =>
      part instanceof Error
        ? part.message
        : typeof part === "string"
          ? part
          : // Nested errors (the SDK logs [error]) show their message only, never a request config.
            JSON.stringify(part, (_key, value: unknown) => (value instanceof Error ? value.message : value)),
    )
    .join(" ");
  return redactSecrets(text, secrets);
}

/** The SDK's logger, forwarded to ours: warnings and errors only, with the app secret and tokens redacted. */
export function createSdkLogger(logger: Logger, channel: string, secrets: readonly string[]): LarkLogger {
  return {
    error: (...parts) => logger.error({ channel, sdk: "lark" }, line(parts, secrets)),
    warn: (...parts) => logger.warn({ channel, sdk: "lark" }, line(parts, secrets)),
    // The SDK's info/debug lines include event payloads and connection URLs: not worth the risk.
    info: () => {},
    debug: () => {},
    trace: () => {},
  };
}
