import type { RenderTarget } from "./render-target.js";

// Control characters (ESC, CSI, BEL, backspace…) would let a model's text move the cursor, retitle
// the window or hide what follows: every literal loses them. Newlines and tabs stay.
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const sgr = (open: number, close: number) => (text: string) =>
  text === "" ? text : `\u001b[${open}m${text}\u001b[${close}m`;

const bold = sgr(1, 22);
const dim = sgr(2, 22);
const italic = sgr(3, 23);
const underline = sgr(4, 24);
const strike = sgr(9, 29);
const cyan = sgr(36, 39);

const safe = (value: string) => value.replace(controlCharacters, "");

function prefixLines(inner: string, prefix: string, emptyLinePrefix: string): string {
  return inner
    .split("\n")
    .map((line) => (line ? `${prefix}${line}` : emptyLinePrefix))
    .join("\n");
}

/**
 * How a terminal shows Markdown. With `color`, ANSI styles (bold, italic, underline, dim gutters
 * for code and quotes, a bold table header); without, the same layout in plain characters
 * (headings underlined with `=`/`-`, code indented, quotes with `> `), as `NO_COLOR` asks.
 */
export function createTerminalTarget(options: { color: boolean }): RenderTarget {
  const { color } = options;
  const plainLink = (inner: string, url: string, label: string) =>
    label === "" || label === url || url === `mailto:${label}`
      ? label === ""
        ? safe(url)
        : inner
      : `${inner} (${safe(url)})`;
  return {
    text: safe,
    strong: (inner) => (color ? bold(inner) : inner),
    emphasis: (inner) => (color ? italic(inner) : inner),
    strikethrough: (inner) => (color ? strike(inner) : inner),
    underline: (inner) => (color ? underline(inner) : inner),
    spoiler: (inner) => (color ? dim(inner) : inner),
    inlineCode: (value) => (color ? cyan(safe(value)) : `\`${safe(value)}\``),
    link: (inner, url, label) => {
      if (!color) return plainLink(inner, url, label);
      if (label === "" || label === url || url === `mailto:${label}`)
        return underline(label === "" ? safe(url) : inner);
      return `${underline(inner)} ${dim(`(${safe(url)})`)}`;
    },
    heading: (inner, depth) => {
      if (color) return depth === 1 ? bold(underline(inner)) : bold(inner);
      if (depth > 2) return inner;
      const width = Math.max(3, Math.max(...inner.split("\n").map((line) => line.length)));
      return `${inner}\n${(depth === 1 ? "=" : "-").repeat(width)}`;
    },
    codeBlock: (value, language) => {
      const code = safe(value);
      if (!color) return prefixLines(code, "    ", "");
      const gutter = dim("│ ");
      const lines = code.split("\n").map((line) => `${gutter}${line}`);
      return [...(language ? [dim(`╭ ${language}`)] : []), ...lines].join("\n");
    },
    blockquote: (inner) => (color ? prefixLines(inner, dim("│ "), dim("│")) : prefixLines(inner, "> ", ">")),
    table: ({ grid }) => {
      if (!color) return grid();
      const [header = "", rule = "", ...body] = safe(grid()).split("\n");
      return [bold(header), dim(rule), ...body].join("\n");
    },
    thematicBreak: () => (color ? dim("─".repeat(40)) : "—".repeat(3)),
    bullet: (depth) => (depth === 1 ? "•" : "◦"),
  };
}
