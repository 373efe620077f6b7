/** ANSI styles that are no-ops when colour is off. */
export interface Colors {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const style =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled && text ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/**
 * Colours for one output stream: `FORCE_COLOR` (not `0`) turns them on, `NO_COLOR` (any value)
 * turns them off, otherwise they follow whether the stream is a terminal.
 */
export function createColors(options: { env: NodeJS.ProcessEnv; isTTY: boolean }): Colors {
  const force = options.env.FORCE_COLOR;
  const enabled =
    force !== undefined && force !== ""
      ? force !== "0" && force !== "false"
      : options.env.NO_COLOR
        ? false
        : options.isTTY;
  return {
    enabled,
    dim: style(enabled, 2, 22),
    bold: style(enabled, 1, 22),
    red: style(enabled, 31, 39),
    green: style(enabled, 32, 39),
    yellow: style(enabled, 33, 39),
  };
}

/** Whether a stream is a terminal. */
export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return Boolean((stream as { isTTY?: boolean }).isTTY);
}
