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
  let columns = 0;
  for (const row of rows) if (row.length > columns) columns = row.length;
  if (columns === 0) return "";
  // A cell is one line: a line break inside it would break the grid.
  const cells: string[][] = [];
  const cellWidths: number[][] = [];
  const widths: number[] = new Array(columns).fill(1);
  for (const row of rows) {
    const rowCells: string[] = [];
    const rowWidths: number[] = [];
    for (let column = 0; column < columns; column++) {
      const cell = oneLine(row[column] ?? "").trim();
      const width = displayWidth(cell);
      rowCells.push(cell);
      rowWidths.push(width);
      if (width > (widths[column] as number)) widths[column] = width;
    }
    cells.push(rowCells);
    cellWidths.push(rowWidths);
  }
  let grid = "";
  for (let index = 0; index < cells.length; index++) {
    let line = "";
    for (let column = 0; column < columns; column++) {
      if (column > 0) line += " | ";
      const room = (widths[column] as number) - (cellWidths[index]?.[column] as number);
      line += pad(cells[index]?.[column] as string, room, align[column]);
    }
    grid += index === 0 ? line.trimEnd() : `\n${line.trimEnd()}`;
    if (index === 0) grid += `\n${widths.map((width) => "-".repeat(width)).join("-+-")}`;
  }
  return grid;
}

// `room` is how many columns the cell lacks to fill its column.
function pad(cell: string, room: number, align: ColumnAlign): string {
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
