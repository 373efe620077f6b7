import type { Logger } from "@downcity/core";

/** The SDK's logger interface (`WSClientOptions.logger`). */
export interface SdkLogger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

const describe = (args: unknown[]) =>
  args.map((arg) =>
    arg instanceof Error ? arg.message : typeof arg === "string" ? arg : JSON.stringify(arg),
  );

/**
 * Bridges the SDK's logging to the channel's logger. Its debug lines (whole message bodies, what
 * people wrote) are dropped; the rest are logged with every occurrence of `secrets` masked.
 */
export function sdkLogger(logger: Logger, channel: string, secrets: readonly string[]): SdkLogger {
  const mask = (text: string) =>
    secrets.reduce((masked, secret) => (secret ? masked.split(secret).join("***") : masked), text);
  const line = (message: string, args: unknown[]) =>
    mask([message, ...describe(args)].join(" ")).slice(0, 2000);
  return {
    debug() {},
    info: (message, ...args) => logger.debug({ channel, source: "wecom-sdk" }, line(message, args)),
    // "Client not connected": a disconnect of a client already closed, which stop and reconnect allow.
    warn: (message, ...args) =>
      message === "Client not connected"
        ? undefined
        : logger.warn({ channel, source: "wecom-sdk" }, line(message, args)),
    error: (message, ...args) => logger.warn({ channel, source: "wecom-sdk" }, line(message, args)),
  };
}
