import { type UntilOptions, until } from "./until.js";

/** Everything a stream has written so far, and a wait for what it will write. */
export interface WatchedOutput {
  /** The text written so far (UTF-8). */
  readonly text: string;
  /** Resolves once `text` holds `needle`; on timeout the error shows what was written. */
  waitFor(needle: string | RegExp, options?: UntilOptions | number): Promise<void>;
}

/** Collects what `stream` writes (a child's stdout, a PassThrough standing in for a terminal). */
export function watchOutput(stream: NodeJS.ReadableStream): WatchedOutput {
  let text = "";
  stream.on("data", (chunk: Buffer | string) => {
    text += chunk.toString();
  });
  const holds = (needle: string | RegExp) =>
    typeof needle === "string" ? text.includes(needle) : needle.test(text);
  return {
    get text() {
      return text;
    },
    async waitFor(needle, options) {
      await until(
        () => holds(needle),
        () => `${String(needle)}; got:\n${text}`,
        options,
      );
    },
  };
}
