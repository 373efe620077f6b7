import { createInterface } from "node:readline";
import {
  bindWeixinChannel,
  loadWeixinChannelOptions,
  type WeixinChannelBinding,
  weixinChannelStateDir,
} from "@downcity/adapters-weixin";
import { DowncityError } from "@downcity/core";
import type { Command } from "commander";
import { renderUnicodeCompact } from "uqr";
import type { CliIo } from "../cli-io.js";
import { findProjectRoot } from "../project/find-project-root.js";

/** QR codes shown before giving up (each lives a few minutes). */
const maxQrCodes = 3;

interface LoginOptions {
  dir?: string;
  json?: boolean;
  timeout?: string;
}

// One line from stdin: the digits WeChat shows when it asks for them.
const readLine = (io: CliIo, prompt: string) =>
  new Promise<string>((resolve) => {
    const lines = createInterface({ input: io.stdin, output: io.stderr });
    lines.question(prompt, (answer) => {
      lines.close();
      resolve(answer.trim());
    });
  });

// The shared binding flow, shown in the terminal: the code as Unicode half blocks, and its link.
function bind(
  io: CliIo,
  target: { baseUrl: string; stateDir: string },
  timeoutMs: number,
  out: NodeJS.WritableStream,
): Promise<WeixinChannelBinding> {
  return bindWeixinChannel({
    ...target,
    maxQrCodes,
    timeoutMs,
    onQrCode: (code) => {
      out.write(`\n${renderUnicodeCompact(code.content)}\n`);
      out.write(`Scan this code with WeChat (8.0.70 or later) on your phone, then confirm there.\n`);
      out.write(`If the picture does not scan, open this link in WeChat: ${code.content}\n`);
    },
    onStatus: (status, shown) => {
      if (status === "scaned") out.write("Scanned: confirm the binding on your phone.\n");
      if (status === "expired" && shown < maxQrCodes) out.write("The code expired; here is a new one.\n");
    },
    askVerifyCode: (retry) =>
      readLine(io, retry ? "The digits did not match; type them again: " : "Type the digits WeChat shows: "),
  });
}

/**
 * `downcity channels login <name>`: binds a WeChat channel by QR code: prints the code in the terminal,
 * waits for the scan and the confirmation on the phone, and stores the bot token in the channel's private
 * state folder (mode 0600), where the adapter (and a running daemon, within seconds) reads it.
 */
export function registerChannelsLoginCommand(program: Command, io: CliIo): void {
  program
    .command("channels")
    .description("Channel set-up that needs no daemon")
    .command("login <name>")
    .description("Bind a WeChat channel: scan the QR code printed here; run it again when the token expires")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--timeout <seconds>", "longest wait for the scan and confirmation, per code", "480")
    .option("--json", "print the result as JSON (the QR code goes to stderr)")
    .action(async (name: string, options: LoginOptions) => {
      const rootDir = findProjectRoot(io.cwd, options.dir);
      const channel = await loadWeixinChannelOptions(rootDir, name, { env: io.env });
      const out = options.json ? io.stderr : io.stdout;
      const timeoutMs = Math.max(1, Number(options.timeout ?? 480)) * 1000;
      const stateDir = weixinChannelStateDir(rootDir, name);
      const result = await bind(io, { baseUrl: channel.baseUrl, stateDir }, timeoutMs, out);
      if (result.status !== "confirmed")
        throw new DowncityError(
          "SERVICE_ERROR",
          result.status === "already-bound"
            ? "WeChat says this bot is already bound here; its stored token stays in use."
            : `WeChat binding ended without a token (${result.status}); run \`downcity channels login ${name}\` again.`,
        );
      const file = result.credentialsFile;
      if (options.json) {
        io.stdout.write(
          `${JSON.stringify({ channel: name, bound: true, botId: result.botId, userId: result.userId, credentials: file })}\n`,
        );
        return;
      }
      io.stdout.write(
        [
          `Bound: channel "${name}" is WeChat bot ${result.botId ?? ""} (token stored in ${file}, readable by you only).`,
          "A running daemon picks it up within seconds; otherwise run `downcity start`.",
          `When WeChat ends the binding (the token expires), \`downcity channels list\` shows "${name}" failed with "token expired": run \`downcity channels login ${name}\` again.`,
          "",
        ].join("\n"),
      );
    });
}
