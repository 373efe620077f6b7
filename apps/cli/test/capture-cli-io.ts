import { PassThrough } from "node:stream";
import type { CliIo } from "../src/cli-io.js";

/**
 * A non-interactive `CliIo` whose stdout and stderr are collected in `out`; `tty` makes stdout look
 * like a 120-column terminal (the streaming view).
 */
export function captureCliIo(env: NodeJS.ProcessEnv, cwd: string, options: { tty?: boolean } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (options.tty) Object.assign(stdout, { isTTY: true, columns: 120 });
  const out = { stdout: "", stderr: "" };
  stdout.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString("utf8");
  });
  stderr.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString("utf8");
  });
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env, cwd, interactive: false };
  return { io, out };
}
