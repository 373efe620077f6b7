import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { signWebhookBody } from "@downcity/adapters-webhook";
import {
  type OpenAICompatibleServer,
  type ScriptedReply,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { freePort } from "@downcity/testkit";
import { type Browser, chromium } from "playwright-core";
import {
  agentOn,
  createConsoleLoginLink,
  createDaemonClient,
  type DaemonClient,
  initProject,
  readDaemonMeta,
  readToken,
  startConsole,
  stopConsole,
  stopDaemon,
} from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

function newestChange(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/** Builds the page of `@downcity/console-web` when its `dist/` is missing or older than its sources. */
export function ensureConsoleWebBuilt(): void {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve("@downcity/console-web/package.json"));
  const built = join(packageDir, "dist", "index.html");
  const sources = ["src", "public", "index.html", "vite.config.ts"].map((entry) => join(packageDir, entry));
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newestChange))) return;
  execFileSync("npx", ["vite", "build", "--logLevel", "error"], { cwd: packageDir, stdio: "inherit" });
}

/** Debian's Chromium, started the way this machine's closed network needs (no background traffic). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.DOWNCITY_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** An answer with every Markdown construct the page renders, and some it must not (raw HTML, a script link). */
export const markdownAnswer = [
  "## Build report",
  "",
  "**All green** in _3 s_, see [the log](https://ci.test/run/7) and `npm test`.",
  "",
  "- first item",
  "- second item",
  "",
  "| file | lines |",
  "|---|---:|",
  "| a.ts | 12 |",
  "",
  "```sh",
  "npm run build",
  "```",
  "",
  "<img src=x onerror=\"document.title='pwned'\"> and [click](javascript:document.title='pwned')",
].join("\n");

/** The scripted model's reply to one call: greetings stream slowly, shell jobs and their follow-ups are tool calls. */
function respond(call: { messages: Array<{ role: string; text: string }> }): ScriptedReply {
  const last = call.messages.at(-1);
  const text = last?.text ?? "";
  if (last?.role === "tool") {
    const shellId = /"shell_id":"(sh_[^"]+)"/.exec(text)?.[1];
    return { text: shellId ? `started ${shellId}` : "done with the tool" };
  }
  if (text.includes("[shell-exit]")) {
    const shellId = /Shell session (\S+)/.exec(text)?.[1] ?? "?";
    return { text: `The job ${shellId} has finished.` };
  }
  if (/start a shell job/.test(text)) {
    return {
      toolCalls: [
        {
          toolName: "shell_start",
          // Yields after 400 ms (two ticks), well before the job ends: the page has time to show
          // the tool running, however quickly the rest of the run goes, and the job still ends later.
          input: { command: "for i in 1 2 3; do echo tick-$i; sleep 0.4; done", yield_ms: 400 },
        },
      ],
    };
  }
  const remember = /^remember that (.+)$/.exec(text)?.[1];
  if (remember) {
    return { toolCalls: [{ toolName: "memory_remember", input: { text: remember, scope: "context" } }] };
  }
  if (/stream slowly/.test(text)) {
    // Deltas far enough apart that each one's arrival in the page can be told apart (benchmarks).
    return { text: "0123456789".repeat(12), chunkSize: 4, delayMs: 40 };
  }
  if (/write the report/.test(text)) return { text: "The report is written." };
  if (/run a command/.test(text))
    return { toolCalls: [{ toolName: "shell_exec", input: { command: "echo from-the-tool" } }] };
  if (/answer in markdown/.test(text)) return { text: markdownAnswer };
  return { text: "Hello from the scripted model, streamed piece by piece.", chunkSize: 4, delayMs: 25 };
}

/**
 * A console with two running agents (alpha, beta) on a scripted model, in a throwaway DOWNCITY_HOME.
 * `alphaOpenDirect` lets anyone message alpha's webhook channel directly (no pairing);
 * `betaApprovals` makes beta ask before shell commands (approvals mode ask).
 */
export async function createConsoleWebWorld(
  entries: { daemonEntry: string; consoleEntry: string },
  options: { alphaOpenDirect?: boolean; betaApprovals?: boolean } = {},
) {
  ensureConsoleWebBuilt();
  const world = await createTempWorld("dc-web-");
  const model: OpenAICompatibleServer = await startOpenAICompatibleServer({ respond });
  const env = { ...world.env, DOWNCITY_DAEMON_ENTRY: entries.daemonEntry };
  const roots = { alpha: world.project("alpha"), beta: world.project("beta") };
  for (const [name, rootDir] of Object.entries(roots)) {
    await initProject(rootDir, {
      name,
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
  }
  // beta also runs the MCP reference server over stdio, so the page can reconnect a real server.
  const mcpPackages = createRequire(new URL("../../../packages/mcp/package.json", import.meta.url));
  const everything = join(
    dirname(mcpPackages.resolve("@modelcontextprotocol/server-everything/package.json")),
    "dist",
    "index.js",
  );
  const betaConfig = join(roots.beta, "downcity.json");
  const config = JSON.parse(await readFile(betaConfig, "utf8"));
  config.mcp = {
    servers: { everything: { type: "stdio", command: process.execPath, args: [everything, "stdio"] } },
  };
  if (options.betaApprovals) config.approvals = { mode: "ask", timeoutMs: 120_000 };
  await writeFile(betaConfig, `${JSON.stringify(config, null, 2)}\n`);
  // alpha also has a webhook channel, so the page can approve a real pairing request.
  const replies: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200).end());
  });
  const webhookPort = await freePort();
  await new Promise<void>((resolve) => replies.listen(0, "127.0.0.1", resolve));
  const webhookSecret = "0123456789abcdef0123456789abcdef";
  const alphaConfig = join(roots.alpha, "downcity.json");
  const alpha = JSON.parse(await readFile(alphaConfig, "utf8"));
  alpha.channels = {
    hook: {
      adapter: "@downcity/adapters-webhook",
      listen: { host: "127.0.0.1", port: webhookPort },
      url: `http://127.0.0.1:${(replies.address() as AddressInfo).port}/replies`,
      secret: webhookSecret,
      ...(options.alphaOpenDirect ? { access: { dm: "open" } } : {}),
    },
  };
  await writeFile(alphaConfig, `${JSON.stringify(alpha, null, 2)}\n`);
  const consoleServer = await startConsole({ env, entry: entries.consoleEntry });
  await Promise.all(
    Object.values(roots).map((rootDir) => agentOn({ rootDir, env, entry: entries.daemonEntry })),
  );
  const token = (await readToken(env)) as string;
  const client = async (rootDir: string): Promise<DaemonClient> => {
    const meta = (await readDaemonMeta(rootDir))?.meta;
    if (!meta) throw new Error(`no daemon meta in ${rootDir}`);
    return createDaemonClient({ host: meta.host, port: meta.port, token });
  };
  return {
    env,
    roots,
    model,
    token,
    base: `http://127.0.0.1:${consoleServer.port}`,
    port: consoleServer.port,
    client,
    loginLink: () => createConsoleLoginLink({ env }),
    /** Sends a signed event to alpha's webhook channel, as a chat bridge would. */
    async webhookEvent(event: Record<string, unknown>) {
      const body = JSON.stringify(event);
      return fetch(`http://127.0.0.1:${webhookPort}/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-downcity-signature": signWebhookBody(webhookSecret, body),
        },
        body,
      });
    },
    async close() {
      await Promise.all(
        Object.values(roots).map((rootDir) => stopDaemon({ rootDir, graceMs: 2000 }).catch(() => {})),
      );
      await stopConsole({ env, graceMs: 2000 }).catch(() => {});
      await model.close();
      replies.close();
      await world.cleanup();
    },
  };
}
