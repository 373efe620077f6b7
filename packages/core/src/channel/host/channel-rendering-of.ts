import type { ChannelRendering } from "../../prompt/channel-rendering.js";
import type { ChannelCapabilities } from "../adapter/channel-adapter.js";

// Adapters that declare only the older `markdown` field.
const formatOfMarkdown: Record<ChannelCapabilities["markdown"], ChannelRendering["format"]> = {
  none: "plain",
  commonmark: "markdown",
  "telegram-html": "telegram-html",
  "lark-md": "feishu-card",
};

/** The rendering facts of an adapter's capabilities (`format`, else what `markdown` says). */
export function channelRenderingOf(capabilities: ChannelCapabilities): ChannelRendering {
  return {
    format: capabilities.format ?? formatOfMarkdown[capabilities.markdown] ?? "plain",
    maxTextLength: capabilities.maxTextLength,
    sendsFiles: capabilities.attachmentsOut === true,
  };
}
