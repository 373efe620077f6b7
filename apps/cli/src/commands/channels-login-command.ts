import { createInterface } from "node:readline";
import {
  requestWeixinQrCode,
  type WeixinBindingResult,
  waitForWeixinBinding,
  weixinOptionsSchema,
  writeWeixinCredentials,
} from "@downcity/adapters-weixin";
import { DowncityError, loadConfig } from "@downcity/core";
import { downcityPaths } from "@downcity/core/primitives";
import type { Command } from "commander";
import { renderUnicodeCompact } from "uqr";
import type { CliIo } from "../cli-io.js";
import { findProjectRoot } from "../project/find-project-root.js";

const weixinAdapter = "@downcity/adapters-weixin";
/** QR codes shown before giving up (each lives a few minutes). */
const maxQrCodes = 3;

interface LoginOptions {
  dir?: string;
  json?: boolean;
  timeout?: string;
}

// The channel's options from downcity.json (with ${VAR} substituted), checked to be a WeChat channel.
async function weixinChannel(io: CliIo, rootDir: string, name: string) {
  const { config } = await loadConfig(rootDir, { env: io.env });
  const channel = (config.channels as Record<string, Record<string, unknown>> | undefined)?.[name];
  if (!channel)
    throw new DowncityError(
      "NOT_FOUND",
      `No channel "${name}" in downcity.json: add channels.${name} with "adapter": "${weixinAdapter}".`,
      {
        field: `channels.${name}`,
      },
    );
  if (channel.adapter !== weixinAdapter)
    throw new DowncityError(
      "INVALID_INPUT",
      `channels.${name} is not a WeChat channel: only "${weixinAdapter}" binds by QR code.`,
      {
        field: `channels.${name}.adapter`,
      },
    );
  return weixinOptionsSchema.parse(channel);
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

async function bind(io: CliIo, baseUrl: string, timeoutMs: number, out: NodeJS.WritableStream) {
  let result: WeixinBindingResult = { status: "expired" };
  for (let shown = 1; shown <= maxQrCodes && result.status === "expired"; shown++) {
    const code = await requestWeixinQrCode(baseUrl);
    out.write(`\n${renderUnicodeCompact(code.content)}\n`);
    out.write(`Scan this code with WeChat (8.0.70 or later) on your phone, then confirm there.\n`);
    out.write(`If the picture does not scan, open this link in WeChat: ${code.content}\n`);
    result = await waitForWeixinBinding(code.qrcode, {
      baseUrl,
      timeoutMs,
      onStatus: (status) => {
        if (status === "scaned") out.write("Scanned: confirm the binding on your phone.\n");
        if (status === "expired" && shown < maxQrCodes) out.write("The code expired; here is a new one.\n");
      },
      askVerifyCode: (retry) =>
        readLine(
          io,
          retry ? "The digits did not match; type them again: " : "Type the digits WeChat shows: ",
        ),
    });
  }
  return result;
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
      const channel = await weixinChannel(io, rootDir, name);
      const out = options.json ? io.stderr : io.stdout;
      const timeoutMs = Math.max(1, Number(options.timeout ?? 480)) * 1000;
      const result = await bind(io, channel.baseUrl, timeoutMs, out);
      if (result.status !== "confirmed")
        throw new DowncityError(
          "SERVICE_ERROR",
          result.status === "already-bound"
            ? "WeChat says this bot is already bound here; its stored token stays in use."
            : `WeChat binding ended without a token (${result.status}); run \`downcity channels login ${name}\` again.`,
        );
      const stateDir = `${downcityPaths(rootDir).channelDir(name)}/state`;
      const file = await writeWeixinCredentials(stateDir, {
        botToken: result.botToken,
        ...(result.baseUrl ? { baseUrl: result.baseUrl } : {}),
        ...(result.botId ? { botId: result.botId } : {}),
        ...(result.userId ? { userId: result.userId } : {}),
        boundAt: new Date().toISOString(),
      });
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
