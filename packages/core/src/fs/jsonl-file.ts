import { openRawFile, type RawFile } from "./raw-file.js";

/** Lines of a JSONL file and what could not be parsed. */
export interface JsonlReadResult<T> {
  records: T[];
  /** 1-based line numbers (counted from the start of what was read) of lines that were not valid JSON. */
  malformed: Array<{ line: number; reason: string }>;
}

function parseLines<T>(text: string, validate: (value: unknown) => value is T): JsonlReadResult<T> {
  const records: T[] = [];
  const malformed: Array<{ line: number; reason: string }> = [];
  const lines = text.split("\n");
  // The text ends with "\n" (we only pass complete lines), so the last element is empty.
  lines.pop();
  lines.forEach((line, index) => {
    if (line.trim() !== "") parseLine(line, index, validate, records, malformed);
  });
  return { records, malformed };
}

/** Parses line `index` (0-based) into `records`, or names it in `malformed`. */
function parseLine<T>(
  line: string,
  index: number,
  validate: (value: unknown) => value is T,
  records: T[],
  malformed: Array<{ line: number; reason: string }>,
): void {
  try {
    const value: unknown = JSON.parse(line);
    if (validate(value)) records.push(value);
    else malformed.push({ line: index + 1, reason: "not a history record" });
  } catch (error) {
    malformed.push({ line: index + 1, reason: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The last `count` records of `text` (complete lines), parsed from the end: lines before them are
 * split off but never parsed, so a tail read costs its `count` lines, not the whole chunk read.
 * `malformed` names the lines skipped on the way (numbered from the start of `text`); `scannedAll`
 * is true when every line was looked at.
 */
function parseLastLines<T>(
  text: string,
  count: number,
  validate: (value: unknown) => value is T,
): JsonlReadResult<T> & { scannedAll: boolean } {
  const records: T[] = [];
  const malformed: Array<{ line: number; reason: string }> = [];
  const lines = text.split("\n");
  lines.pop();
  let index = lines.length - 1;
  for (; index >= 0 && records.length < count; index--) {
    const line = lines[index] as string;
    if (line.trim() !== "") parseLine(line, index, validate, records, malformed);
  }
  // Blank lines left before the tail hold no record either.
  while (index >= 0 && (lines[index] as string).trim() === "") index--;
  return { records: records.reverse(), malformed: malformed.reverse(), scannedAll: index < 0 };
}

/** Reads every complete line of a JSONL file; a final line without "\n" (still being written) is ignored. */
export async function readJsonl<T>(
  path: string,
  validate: (value: unknown) => value is T,
): Promise<JsonlReadResult<T>> {
  let handle: RawFile;
  try {
    handle = await openRawFile(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], malformed: [] };
    throw error;
  }
  try {
    const buffer = await handle.readFile();
    const end = buffer.lastIndexOf(0x0a) + 1;
    return parseLines(buffer.subarray(0, end).toString("utf8"), validate);
  } finally {
    await handle.close();
  }
}

/** Reads only the last `count` complete lines, scanning backwards so the cost is independent of file size. */
export async function readJsonlTail<T>(
  path: string,
  count: number,
  validate: (value: unknown) => value is T,
): Promise<JsonlReadResult<T> & { reachedStart: boolean }> {
  let handle: RawFile;
  try {
    handle = await openRawFile(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { records: [], malformed: [], reachedStart: true };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    return await readJsonlTailOf(handle, size, count, validate);
  } finally {
    await handle.close();
  }
}

/**
 * `readJsonlTail` of an open file whose first `size` bytes are read (positional reads: its offset is
 * untouched); `end` is where its last complete line ends (`size` unless a line is still being written).
 */
export async function readJsonlTailOf<T>(
  handle: RawFile,
  size: number,
  count: number,
  validate: (value: unknown) => value is T,
): Promise<JsonlReadResult<T> & { reachedStart: boolean; end: number }> {
  const chunks: Buffer[] = [];
  let position = size;
  let newlines = 0;
  let chunkSize = 64 * 1024;
  // count + 1 newlines delimit `count` complete lines.
  while (position > 0 && newlines <= count) {
    const length = Math.min(chunkSize, position);
    position -= length;
    const chunk = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(chunk, 0, length, position);
    // A file truncated meanwhile: what is past its end reads as nothing, never as stale bytes.
    if (bytesRead < length) chunk.fill(0x0a, bytesRead);
    chunks.unshift(chunk);
    for (let index = chunk.indexOf(0x0a); index !== -1; index = chunk.indexOf(0x0a, index + 1)) newlines++;
    chunkSize = Math.min(chunkSize * 2, 4 * 1024 * 1024);
  }
  let buffer = Buffer.concat(chunks);
  const lastNewline = buffer.lastIndexOf(0x0a);
  const end = position + lastNewline + 1;
  buffer = buffer.subarray(0, lastNewline + 1);
  const reachedStart = position === 0;
  let start = 0;
  if (!reachedStart) start = buffer.indexOf(0x0a) + 1;
  const result = parseLastLines<T>(buffer.subarray(start).toString("utf8"), count, validate);
  return {
    records: result.records,
    malformed: result.malformed,
    // Every record of the file is in `records` (a tail that stopped before malformed lines says false).
    reachedStart: reachedStart && result.scannedAll,
    end,
  };
}
