import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@downcity/core";
import pino from "pino";

/** A pino logger writing one JSON line per event to `<logsDir>/YYYY-MM-DD.jsonl`, switching files daily. */
export interface FileLogger {
  logger: Logger;
  /** Flushes buffered lines and closes the current file. */
  close(): Promise<void>;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/** Creates the daemon's structured file logger (tokens and authorization headers are redacted). */
export function createFileLogger(options: { logsDir: string; level?: string; now?: () => Date }): FileLogger {
  const now = options.now ?? (() => new Date());
  mkdirSync(options.logsDir, { recursive: true });
  let currentDay = "";
  let destination: pino.DestinationStream & { end?: () => void; flushSync?: () => void } =
    pino.destination(1);
  const open = (name: string) => {
    currentDay = name;
    destination = pino.destination({
      dest: join(options.logsDir, `${name}.jsonl`),
      sync: false,
      mkdir: true,
    });
  };
  open(day(now()));
  const stream = {
    write(line: string) {
      const today = day(now());
      if (today !== currentDay) {
        destination.end?.();
        open(today);
      }
      destination.write(line);
    },
  };
  const instance = pino(
    {
      level: options.level ?? "info",
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ["token", "*.token", "authorization", "*.authorization", "headers.authorization"],
        censor: "[redacted]",
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  return {
    logger: instance,
    close: () =>
      new Promise<void>((resolve) => {
        try {
          destination.flushSync?.();
        } catch {
          // Nothing buffered or the stream is not ready yet.
        }
        destination.end?.();
        resolve();
      }),
  };
}
