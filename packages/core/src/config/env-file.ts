import { readFile } from "node:fs/promises";
import { parseEnv } from "node:util";

/**
 * Parses dotenv text with Node's own parser (`util.parseEnv`): `KEY=value`, `export KEY=value`,
 * single, double and backtick quotes, multi-line double-quoted values, `\n` in double quotes,
 * `#` comments, LF and CRLF line ends.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[key] = value;
  return values;
}

/** Reads `path` as dotenv; a missing file is an empty set. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  try {
    return parseEnvFile(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
}
