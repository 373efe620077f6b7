import type { RenderTarget } from "./render-target.js";

/** How a platform's Markdown dialect differs from CommonMark with GFM tables. */
export interface MarkdownDialect {
  /** Write `<` and `>` as `&#60;`/`&#62;`: the platform reads HTML-like tags (`<at>`, `<font>`) in text. */
  escapeAngleBrackets: boolean;
  /** Tables as GFM pipe tables, or as an aligned code block where the platform has none. */
  tables: "pipe" | "code";
  /** Tables past this many in one message become code blocks. */
  maxPipeTables?: number;
  /** Link schemes the platform opens; other links become `label (url)`. */
  linkSchemes: RegExp;
}

/**
 * A target that writes Markdown back out in a platform's dialect: the model's Markdown normalised
 * (raw HTML shown as text, images as links, references resolved, every literal escaped), so what
 * the platform renders is what the model meant and nothing the model did not.
 */
export function createMarkdownTarget(dialect: MarkdownDialect): RenderTarget {
  let pipeTables = 0;
  const text = (value: string) => {
    // Intraword `_` never starts emphasis; everything else that could become syntax is escaped.
    let escaped = value.replace(/[\\`*[\]~|]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\$&");
    if (dialect.escapeAngleBrackets) escaped = escaped.replace(/</g, "&#60;").replace(/>/g, "&#62;");
    return escaped;
  };
  const codeBlock = (value: string, language: string | undefined) => {
    const fence = "`".repeat(Math.max(3, longestRun(value, "`") + 1));
    return `${fence}${language ?? ""}\n${value}\n${fence}`;
  };
  return {
    text,
    strong: (inner) => `**${inner}**`,
    emphasis: (inner) => `*${inner}*`,
    strikethrough: (inner) => `~~${inner}~~`,
    underline: (inner) => inner,
    spoiler: (inner) => inner,
    inlineCode: (value) => {
      const fence = "`".repeat(longestRun(value, "`") + 1);
      const padded = value.startsWith("`") || value.endsWith("`") ? ` ${value} ` : value;
      return `${fence}${padded}${fence}`;
    },
    link: (inner, url, label) => {
      if (!dialect.linkSchemes.test(url))
        return label === "" || label === url ? text(url) : `${inner} (${text(url)})`;
      // Spaces and parentheses would end the destination early.
      const destination = url.replace(/ /g, "%20").replace(/\(/g, "%28").replace(/\)/g, "%29");
      return `[${label.trim() ? inner : text(url)}](${destination})`;
    },
    heading: (inner, depth) => `${"#".repeat(depth)} ${inner}`,
    codeBlock,
    blockquote: (inner) =>
      inner
        .split("\n")
        .map((line) => (line ? `> ${line}` : ">"))
        .join("\n"),
    table: (table) => {
      if (dialect.tables === "code" || pipeTables >= (dialect.maxPipeTables ?? Number.POSITIVE_INFINITY))
        return codeBlock(table.grid(), undefined);
      pipeTables++;
      const { align } = table;
      const rows = table.rows();
      const columns = Math.max(...rows.map((row) => row.length));
      const line = (row: string[]) =>
        `| ${Array.from({ length: columns }, (_, column) => row[column] || " ").join(" | ")} |`;
      const rule = Array.from({ length: columns }, (_, column) =>
        align[column] === "center"
          ? ":-:"
          : align[column] === "right"
            ? "--:"
            : align[column] === "left"
              ? ":--"
              : "---",
      );
      const [header = [], ...body] = rows;
      return [line(header), `| ${rule.join(" | ")} |`, ...body.map(line)].join("\n");
    },
    thematicBreak: () => "---",
    bullet: () => "-",
  };
}

function longestRun(value: string, character: string): number {
  let longest = 0;
  let current = 0;
  for (const each of value) {
    current = each === character ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}
