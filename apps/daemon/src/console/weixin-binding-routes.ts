import { loadWeixinChannelOptions, loadWeixinChannels } from "@downcity/adapters-weixin";
import { z } from "zod";
import type { ConsoleAgents } from "./console-agents.js";
import { agentField, type ConsoleApiRoutes, parse, queryObject } from "./console-api-routes.js";
import type { WeixinBindings } from "./weixin-bindings.js";

const channelInput = z.strictObject({
  agent: agentField,
  channel: z.string().min(1).max(128).describe("The WeChat channel's name in downcity.json"),
});

/**
 * The Channels page's WeChat binding routes: list the project's WeChat channels, start a QR binding (only
 * for a channel downcity.json names as WeChat), read where it stands, cancel it. They sit behind the console's session like every route.
 */
export function createWeixinBindingRoutes(
  agents: ConsoleAgents,
  bindings: WeixinBindings,
  env: Record<string, string | undefined>,
): ConsoleApiRoutes {
  return {
    // From downcity.json, not the daemon: a stopped agent's WeChat channels can be bound too.
    "GET channels/weixin-channels": async ({ query }) => {
      const input = parse(z.strictObject({ agent: agentField }), queryObject(query));
      const channels = await loadWeixinChannels(await agents.root(input.agent), { env });
      return { channels: channels.map((channel) => channel.name) };
    },
    "GET channels/weixin-binding": async ({ query }) => {
      const input = parse(channelInput, queryObject(query));
      return { binding: bindings.view(await agents.root(input.agent), input.channel) };
    },
    "POST channels/weixin-binding": async ({ body }) => {
      const input = parse(channelInput, body);
      const rootDir = await agents.root(input.agent);
      // The channel's own options, read as the daemon and `channels login` read them (.env, ${VAR}).
      const options = await loadWeixinChannelOptions(rootDir, input.channel, { env });
      return { binding: await bindings.start(rootDir, input.channel, options.baseUrl) };
    },
    "POST channels/weixin-binding/cancel": async ({ body }) => {
      const input = parse(channelInput, body);
      return { binding: bindings.cancel(await agents.root(input.agent), input.channel) };
    },
  };
}
