import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";

/** Appends lines to files of one folder; resolves once the line is written. */
export type GroupedAppend = (fileName: string, line: string) => Promise<void>;

interface Pending {
  fileName: string;
  line: string;
  done: () => void;
  fail: (error: unknown) => void;
}

/**
 * Appends that come while a write runs go out together in the next one, one write a file: the
 * lines stay in call order and never interleave, and a burst of calls waits as a list of lines.
 * A promise chain of one write a call fell behind the daemon soak's turn rate (each write is a few
 * thread-pool round trips on a busy event loop) and kept every waiting call's record and async
 * context alive: thousands of them, most of the soak's memory growth.
 */
export function createGroupedAppend(dir: string): GroupedAppend {
  let pending: Pending[] = [];
  let writing = false;

  const writeFile = async (fileName: string, text: string) => {
    const path = join(dir, fileName);
    try {
      await appendFile(path, text);
    } catch (error) {
      // The folder is made on the first write only, not checked on every one.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await mkdir(dir, { recursive: true });
      await appendFile(path, text);
    }
  };

  const work = async () => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      const byFile = new Map<string, Pending[]>();
      for (const entry of batch) {
        const entries = byFile.get(entry.fileName);
        if (entries) entries.push(entry);
        else byFile.set(entry.fileName, [entry]);
      }
      for (const [fileName, entries] of byFile) {
        try {
          await writeFile(fileName, entries.map((entry) => entry.line).join(""));
          for (const entry of entries) entry.done();
        } catch (error) {
          for (const entry of entries) entry.fail(error);
        }
      }
    }
    writing = false;
  };

  return (fileName, line) => {
    const written = new Promise<void>((done, fail) => pending.push({ fileName, line, done, fail }));
    if (!writing) {
      writing = true;
      // Never rejects: a failed write fails the appends it carried.
      void work();
    }
    return written;
  };
}
