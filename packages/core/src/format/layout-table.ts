import { displayWidth } from "./display-width.js";

/** How a table column is aligned, as GFM's delimiter row says. */
export type ColumnAlign = "left" | "right" | "center" | null | undefined;

/**
 * Lays a table out as monospace text: columns padded to their widest cell (East Asian wide
 * characters count two), a rule under the header row, ` | ` between columns. Platforms without
 * tables show it in a code block so it stays aligned.
 */
export function layoutTable(
  rows: readonly (readonly string[])[],
  align: readonly ColumnAlign[] = [],
): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  if (columns === 0) return "";
  // A cell is one line: a line break inside it would break the grid.
  const cells = rows.map((row) =>
    Array.from({ length: columns }, (_, column) => oneLine(row[column] ?? "").trim()),
  );
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(1, ...cells.map((row) => displayWidth(row[column] ?? ""))),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) => pad(cell, widths[column] ?? 1, align[column]))
      .join(" | ")
      .trimEnd();
  const [header, ...body] = cells;
  const rule = widths.map((width) => "-".repeat(width)).join("-+-");
  return [line(header ?? []), rule, ...body.map(line)].join("\n");
}

function pad(cell: string, width: number, align: ColumnAlign): string {
  const room = width - displayWidth(cell);
  if (room <= 0) return cell;
  if (align === "right") return " ".repeat(room) + cell;
  if (align === "center") {
    const left = Math.floor(room / 2);
    return " ".repeat(left) + cell + " ".repeat(room - left);
  }
  return cell + " ".repeat(room);
}

/** The text with its line breaks (and the space around them) turned into single spaces. */
export function oneLine(text: string): string {
  return text.includes("\n") ? text.replace(/\s*\n\s*/g, " ") : text;
}
