import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** One line of the daemon's pino log. */
export interface DaemonLogLine {
  pid: number;
  msg?: string;
  [field: string]: unknown;
}

/** Every line the daemon with `pid` wrote to `<rootDir>/.downcity/logs/*.jsonl` so far, in order. */
export async function readDaemonLog(rootDir: string, pid: number): Promise<DaemonLogLine[]> {
  const dir = join(rootDir, ".downcity", "logs");
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".jsonl"))
    .sort();
  const lines: DaemonLogLine[] = [];
  for (const name of names) {
    for (const text of (await readFile(join(dir, name), "utf8")).split("\n")) {
      if (!text.trim()) continue;
      try {
        const line = JSON.parse(text) as DaemonLogLine;
        if (line.pid === pid) lines.push(line);
      } catch {
        // A line a SIGKILLed daemon left half-written.
      }
    }
  }
  return lines;
}
