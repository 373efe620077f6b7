import type { Colors } from "./colors.js";

/** Renders a reply's Markdown for the terminal. */
export type RenderReply = (markdown: string) => string;

/** The reply rendering of one chat: `render` is undefined when replies are shown as written. */
export interface ReplyRendering {
  render?: RenderReply;
  /** Settles once the renderer is loaded (await it before the first reply can arrive). */
  ready: Promise<void>;
}

const asWritten: RenderReply = (markdown) => markdown.replace(/^\n+|\n+$/g, "");

/**
 * How agent replies are shown: Markdown rendered with ANSI styles when colours are on; laid out
 * without escape codes on a terminal with `NO_COLOR`; as the model wrote it (no `render`) when the
 * output is no terminal, so a pipe or a file gets the Markdown unchanged. Core's renderer (and the
 * AI SDK it comes with) is imported here, in the background when a chat starts, never by
 * `--version`, `help` or `status`.
 */
export function loadReplyRendering(options: { colors: Colors; isTTY: boolean }): ReplyRendering {
  if (!options.colors.enabled && !options.isTTY) return { ready: Promise.resolve() };
  const color = options.colors.enabled;
  let loaded: RenderReply = asWritten;
  const ready = import("@downcity/core").then(
    ({ renderTerminalText }) => {
      loaded = (markdown) => renderTerminalText(markdown, { color });
    },
    // Rendering is a nicety: without it the reply is shown as written.
    () => {},
  );
  return { render: (markdown) => loaded(markdown), ready };
}
