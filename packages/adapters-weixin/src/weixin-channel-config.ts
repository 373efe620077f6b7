import { join } from "node:path";
import { DowncityError, downcityPaths, loadConfig } from "@downcity/core";
import { type WeixinOptions, weixinOptionsSchema } from "./weixin-options.js";

/** What downcity.json names as a WeChat channel's `adapter`. */
export const weixinAdapterName = "@downcity/adapters-weixin";

/** A WeChat channel of a project: its name in downcity.json and its validated options. */
export interface WeixinChannelConfig {
  name: string;
  options: WeixinOptions;
}

/** The channel's private state folder, where the daemon hands it its state and `login` stores the token. */
export function weixinChannelStateDir(rootDir: string, channel: string): string {
  return join(downcityPaths(rootDir).channelDir(channel), "state");
}

/** Every WeChat channel of the project's downcity.json (`.env` and `${VAR}` applied as the daemon does). */
export async function loadWeixinChannels(
  rootDir: string,
  options: { env?: Record<string, string | undefined> } = {},
): Promise<WeixinChannelConfig[]> {
  const { config } = await loadConfig(rootDir, options.env ? { env: options.env } : {});
  const channels = (config.channels ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(channels)
    .filter(([, channel]) => channel.adapter === weixinAdapterName)
    .map(([name, channel]) => ({ name, options: weixinOptionsSchema.parse(channel) }));
}

/** The options of the WeChat channel `name`; a typed error naming the field when it is absent or another kind. */
export async function loadWeixinChannelOptions(
  rootDir: string,
  name: string,
  options: { env?: Record<string, string | undefined> } = {},
): Promise<WeixinOptions> {
  const { config } = await loadConfig(rootDir, options.env ? { env: options.env } : {});
  const channel = (config.channels as Record<string, Record<string, unknown>> | undefined)?.[name];
  if (!channel)
    throw new DowncityError(
      "NOT_FOUND",
      `No channel "${name}" in downcity.json: add channels.${name} with "adapter": "${weixinAdapterName}".`,
      { field: `channels.${name}` },
    );
  if (channel.adapter !== weixinAdapterName)
    throw new DowncityError(
      "INVALID_INPUT",
      `channels.${name} is not a WeChat channel: only "${weixinAdapterName}" binds by QR code.`,
      { field: `channels.${name}.adapter` },
    );
  return weixinOptionsSchema.parse(channel);
}
