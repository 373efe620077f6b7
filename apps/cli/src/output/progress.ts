import { clearLine, cursorTo } from "node:readline";
import { createColors } from "./colors.js";
import { formatSeconds } from "./tool-activity-line.js";

/** A wait indicator; `stop()` removes it. */
export interface Progress {
  stop(): void;
}

/**
 * Shows `label… 3.0 s` on a terminal once a wait has lasted `delayMs` [1 s], refreshed every
 * `intervalMs` [250 ms]; shows nothing when `enabled` is false (pipes, --json).
 */
export function startProgress(options: {
  stream: NodeJS.WritableStream;
  label: string;
  enabled: boolean;
  delayMs?: number;
  intervalMs?: number;
  style?: (text: string) => string;
}): Progress {
  if (!options.enabled) return { stop() {} };
  const { stream } = options;
  const started = Date.now();
  const style = options.style ?? ((text: string) => text);
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;
  const draw = () => {
    clearLine(stream, 0);
    cursorTo(stream, 0);
    stream.write(style(`${options.label}… ${formatSeconds(Date.now() - started)}`));
    shown = true;
  };
  const delay = setTimeout(() => {
    draw();
    ticker = setInterval(draw, options.intervalMs ?? 250);
  }, options.delayMs ?? 1000);
  return {
    stop() {
      clearTimeout(delay);
      clearInterval(ticker);
      if (shown) {
        clearLine(stream, 0);
        cursorTo(stream, 0);
        shown = false;
      }
    },
  };
}

/** Runs `work`, showing `label… 1.2 s` on stderr when it is a terminal and the wait passes a second (never with --json). */
export async function withProgress<Result>(
  io: { stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
  label: string,
  options: { json?: boolean | undefined },
  work: () => Promise<Result>,
): Promise<Result> {
  const tty = Boolean((io.stderr as { isTTY?: boolean }).isTTY);
  const progress = startProgress({
    stream: io.stderr,
    label,
    enabled: tty && !options.json,
    style: createColors({ env: io.env, isTTY: tty }).dim,
  });
  try {
    return await work();
  } finally {
    progress.stop();
  }
}
