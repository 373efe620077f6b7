import { DowncityError } from "../errors/downcity-error.js";

/** Where a JSON syntax error sits: 1-based line and column, the offending line and a caret under it. */
export interface JsonSyntaxLocation {
  line: number;
  column: number;
  /** The offending line followed by a line with a caret under the column. */
  excerpt: string;
}

function locate(text: string, offset: number): JsonSyntaxLocation {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const lineEnd = text.indexOf("\n", offset);
  const source = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, "");
  const column = offset - lineStart + 1;
  const gutter = `${line} | `;
  // Tabs stay tabs under the caret, so it lines up in any terminal.
  const pad = source.slice(0, column - 1).replace(/[^\t]/g, " ");
  return {
    line,
    column,
    excerpt: `  ${gutter}${source}\n  ${" ".repeat(gutter.length - 2)}| ${pad}^`,
  };
}

/** The offset V8 names in a JSON.parse message (`at position 229`, or `line 3 column 5`), else the end. */
function offsetOf(message: string, text: string): number {
  const position = /position (\d+)/.exec(message);
  if (position) return Math.min(Number(position[1]), text.length);
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) {
    const lines = text.split("\n").slice(0, Number(lineColumn[1]) - 1);
    return Math.min(
      lines.reduce((sum, line) => sum + line.length + 1, 0) + Number(lineColumn[2]) - 1,
      text.length,
    );
  }
  return text.length;
}

/** A trailing comma before `}` or `]` is the most common mistake: point at the comma itself. */
function trailingComma(text: string, offset: number): number | undefined {
  if (text[offset] !== "}" && text[offset] !== "]") return undefined;
  let index = offset - 1;
  while (index >= 0 && /\s/.test(text[index] as string)) index--;
  return text[index] === "," ? index : undefined;
}

/**
 * Parses a configuration file's text; a syntax error names the file, line and column and shows the
 * offending line with a caret (V8's own message only gives a character position).
 */
export function parseConfigJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const offset = offsetOf(reason, text);
    const comma = trailingComma(text, offset);
    const where = locate(text, comma ?? offset);
    const what =
      comma !== undefined
        ? `a trailing comma before "${text[offset]}" (JSON allows none): remove it`
        : offset >= text.length
          ? "the JSON ends too early: a closing } or ] or a quote is missing"
          : `invalid JSON: ${reason.replace(/ in JSON at position \d+.*$/, "").replace(/^JSON\.parse: /, "")}`;
    throw new DowncityError(
      "CONFIG_INVALID",
      `${path}:${where.line}:${where.column}: ${what}\n${where.excerpt}`,
      { field: `${path}:${where.line}:${where.column}`, cause: error },
    );
  }
}
