import type { RenderTarget } from "./render-target.js";

/** Markdown read aloud as text: markers dropped, link targets kept in parentheses, quotes as `> `. */
export const plainTextTarget: RenderTarget = {
  text: (value) => value,
  strong: (inner) => inner,
  emphasis: (inner) => inner,
  strikethrough: (inner) => inner,
  underline: (inner) => inner,
  spoiler: (inner) => inner,
  inlineCode: (value) => value,
  link: (inner, url, label) =>
    label === "" || label === url || url === `mailto:${label}`
      ? label === ""
        ? url
        : inner
      : `${inner} (${url})`,
  heading: (inner) => inner,
  codeBlock: (value) => value,
  blockquote: (inner) =>
    inner
      .split("\n")
      .map((line) => (line ? `> ${line}` : ">"))
      .join("\n"),
  table: ({ grid }) => grid(),
  thematicBreak: () => "———",
  bullet: (depth) => (depth === 1 ? "•" : "◦"),
};
