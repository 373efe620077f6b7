import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlmConfig } from "@downcity/core";
import { downcityPaths } from "@downcity/core/primitives";
import type { Command } from "commander";
import { CliExit } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { checkSandbox } from "./check-sandbox.js";
import { describeShellEnvLine } from "./check-shell-env.js";
import { checkWeixinChannels } from "./check-weixin-channels.js";
import { checkProjectConfig } from "./doctor-config-check.js";

/** One line of `downcity doctor`: `fail` makes the command exit 1, `warn` and `skip` do not. */
export interface DoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  detail: string;
  fix?: string;
}

const minimumNode = [20, 19] as const;
const modelTimeoutMs = 15000;

function checkNode(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const fine = major > minimumNode[0] || (major === minimumNode[0] && minor >= minimumNode[1]);
  return fine
    ? { name: "node", status: "ok", detail: `Node ${process.versions.node}` }
    : {
        name: "node",
        status: "fail",
        detail: `Node ${process.versions.node} is older than ${minimumNode.join(".")}`,
        fix: `Install Node ${minimumNode.join(".")} or later (https://nodejs.org), then reinstall downcity.`,
      };
}

/** The request a provider answers with one token, as its own HTTP API spells it. */
function oneTokenRequest(
  llm: LlmConfig,
  env: Record<string, string | undefined>,
): { url: string; headers: Record<string, string>; body: unknown; keyName: string } {
  const prompt = [{ role: "user", content: "ping" }];
  if (llm.provider === "anthropic") {
    const key = llm.apiKey ?? env.ANTHROPIC_API_KEY;
    return {
      url: `${(llm.baseURL ?? "https://api.anthropic.com/v1").replace(/\/$/, "")}/messages`,
      headers: { "anthropic-version": "2023-06-01", ...(key ? { "x-api-key": key } : {}) },
      body: { model: llm.model, max_tokens: 1, messages: prompt },
      keyName: "ANTHROPIC_API_KEY",
    };
  }
  const key = llm.apiKey ?? (llm.provider === "openai" ? env.OPENAI_API_KEY : undefined);
  return {
    url: `${(llm.baseURL ?? "https://api.openai.com/v1").replace(/\/$/, "")}/chat/completions`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    // OpenAI's newer models refuse max_tokens; compatible servers (Ollama, vLLM, LM Studio) all read it.
    body:
      llm.provider === "openai" && !llm.baseURL
        ? { model: llm.model, max_completion_tokens: 1, messages: prompt }
        : { model: llm.model, max_tokens: 1, messages: prompt },
    keyName: llm.provider === "openai" ? "OPENAI_API_KEY" : "the key variable",
  };
}

async function checkModel(
  llm: LlmConfig | undefined,
  env: Record<string, string | undefined>,
): Promise<DoctorCheck> {
  const name = "model";
  if (!llm) {
    return {
      name,
      status: "fail",
      detail: 'downcity.json has no "llm"',
      fix: "downcity init --provider openai --model gpt-4.1-mini (see docs/models.md for Anthropic, Ollama, LM Studio, vLLM, ...)",
    };
  }
  const request = oneTokenRequest(llm, env);
  const started = Date.now();
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(modelTimeoutMs),
    });
    const text = await response.text();
    if (response.ok) {
      return {
        name,
        status: "ok",
        detail: `${llm.provider} ${llm.model} answered a 1-token request in ${Date.now() - started} ms`,
      };
    }
    const fix =
      response.status === 401 || response.status === 403
        ? `Check the API key: set it in .env (${request.keyName}=...) and reference it from "llm.apiKey" as "\${VAR}".`
        : response.status === 404
          ? `Check "llm.model" (${llm.model}) and "llm.baseURL" (${llm.baseURL ?? "the provider default"}).`
          : "See the provider's message above; docs/models.md has working settings per provider.";
    return {
      name,
      status: "fail",
      detail: `${request.url} answered HTTP ${response.status}: ${text.slice(0, 200).replace(/\s+/g, " ")}`,
      fix,
    };
  } catch (error) {
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return {
      name,
      status: "fail",
      detail: `${request.url} did not answer: ${reason}`,
      fix: llm.baseURL
        ? `Start the model server at ${llm.baseURL} (e.g. \`ollama serve\`) or fix "llm.baseURL"; --offline skips this check.`
        : "Check the network connection; --offline skips this check.",
    };
  }
}

async function checkPty(): Promise<DoctorCheck> {
  const dir = await mkdtemp(join(tmpdir(), "downcity-doctor-"));
  try {
    const { createShellEngine } = await import("@downcity/shell");
    const engine = createShellEngine({ rootDir: dir, stateDir: join(dir, "shell") });
    try {
      const result = await engine.exec({ command: "echo pty-$((40+2))", tty: true, timeout_ms: 10000 });
      if (result.output.includes("pty-42"))
        return { name: "pty", status: "ok", detail: "a pseudo-terminal spawns" };
      return {
        name: "pty",
        status: "fail",
        detail: `the PTY ran but printed ${JSON.stringify(result.output.slice(0, 120))}`,
        fix: "Reinstall downcity so the PTY binary of this platform is installed (npm i -g downcity).",
      };
    } finally {
      await engine.closeAll({ grace_ms: 200 });
    }
  } catch (error) {
    return {
      name: "pty",
      status: "fail",
      detail: `no PTY: ${error instanceof Error ? error.message : String(error)}`,
      fix: "Reinstall downcity so the PTY binary of this platform is installed (npm i -g downcity).",
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function checkStateFolder(rootDir: string): Promise<DoctorCheck> {
  const { stateDir } = downcityPaths(rootDir);
  const probe = join(stateDir, `.doctor-${process.pid}`);
  try {
    await writeFile(probe, "ok");
    await rm(probe, { force: true });
    return { name: "state", status: "ok", detail: `${stateDir} is writable` };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      name: "state",
      status: "fail",
      detail: missing
        ? `${stateDir} does not exist`
        : `${stateDir} is not writable: ${(error as Error).message}`,
      fix: missing ? "downcity init" : `Make it writable by this user: chmod -R u+w "${stateDir}"`,
    };
  }
}

async function checkConsole(io: CliIo): Promise<DoctorCheck> {
  try {
    const api = await loadDaemonApi();
    const status = await api.consoleStatus({ env: io.env });
    return status.running
      ? {
          name: "console",
          status: "ok",
          detail: `running (pid ${status.pid}, ${status.agents.length} agents)`,
        }
      : {
          name: "console",
          status: "warn",
          detail: "not running (needed only for `downcity agent on`)",
          fix: "downcity console start",
        };
  } catch (error) {
    return {
      name: "console",
      status: "warn",
      detail: `status unknown: ${error instanceof Error ? error.message : String(error)}`,
      fix: "downcity console status",
    };
  }
}

interface ChannelListing {
  channels: Array<{ name: string; adapter: string; state: string; error?: string }>;
}

/** The configured channels as the running daemon reports them: a channel not connected is a failure. */
async function checkChannels(io: CliIo, rootDir: string, configured: string[]): Promise<DoctorCheck> {
  const name = "channels";
  if (configured.length === 0) return { name, status: "skip", detail: "no channels in downcity.json" };
  const { daemonStatus } = await import("@downcity/daemon/client");
  if (!(await daemonStatus({ rootDir })).running) {
    return {
      name,
      status: "warn",
      detail: `${configured.join(", ")} configured; their credentials are checked by the running daemon`,
      fix: "downcity start, then downcity doctor again",
    };
  }
  try {
    const { client } = await connectDaemon(io, { dir: rootDir });
    const { result } = await client.servicesCommand({ service: "channels", action: "list" });
    const { channels } = result as ChannelListing;
    const broken = channels.filter((channel) => channel.state !== "connected");
    if (broken.length === 0) {
      return {
        name,
        status: "ok",
        detail: channels.map((channel) => `${channel.name} connected`).join(", "),
      };
    }
    return {
      name,
      status: "fail",
      detail: broken
        .map(
          (channel) =>
            `${channel.name} (${channel.adapter}) ${channel.state}${channel.error ? `: ${channel.error}` : ""}`,
        )
        .join("; "),
      fix: `Check the credentials of ${broken.map((channel) => `channels.${channel.name}`).join(", ")} in downcity.json and .env, then downcity restart; downcity channels list shows the state.`,
    };
  } catch (error) {
    return {
      name,
      status: "fail",
      detail: `could not ask the daemon: ${error instanceof Error ? error.message : String(error)}`,
      fix: "downcity status; downcity restart",
    };
  }
}

/** Runs every check of `downcity doctor` for the project in `rootDir`. */
export async function runDoctorChecks(
  io: CliIo,
  rootDir: string,
  options: { offline?: boolean },
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [checkNode()];
  const project = await checkProjectConfig(io, rootDir);
  const { llm, channels, shellSection, env } = project;
  checks.push(project.config);
  // The checks that read the file (model, channels, sandbox) run whenever it loads, problems or not.
  const configOk = project.loads;
  if (project.model) checks.push(project.model);
  else if (options.offline) checks.push({ name: "model", status: "skip", detail: "skipped (--offline)" });
  else if (!configOk)
    checks.push({ name: "model", status: "skip", detail: "skipped: the config does not load" });
  else checks.push(await checkModel(llm, env));
  checks.push(await checkPty());
  checks.push(await checkStateFolder(rootDir));
  checks.push(await checkConsole(io));
  if (configOk) checks.push(await checkChannels(io, rootDir, channels));
  const weixin = configOk ? await checkWeixinChannels(io, rootDir, options) : undefined;
  if (weixin) checks.push(weixin);
  if (configOk) {
    const sandbox = await checkSandbox(shellSection, env);
    const shellEnv = await describeShellEnvLine(rootDir, io.env);
    if (!shellEnv) checks.push(sandbox);
    else if (!shellEnv.warning) checks.push({ ...sandbox, detail: `${sandbox.detail}\n${shellEnv.detail}` });
    else
      checks.push({
        ...sandbox,
        status: sandbox.status === "fail" ? "fail" : "warn",
        detail: `${sandbox.detail}\n${shellEnv.detail}\n${shellEnv.warning}`,
      });
  }
  return checks;
}

/** `downcity doctor [dir] [--offline] [--json]`: checks Node, config, model, PTY, state folder, console and channels; exits 1 on a failure. */
export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command("doctor")
    .description(
      "Check Node, the config, the model endpoint, the PTY, the state folder, the console and the channels",
    )
    .argument("[dir]", "project directory (default: the nearest folder with downcity.json)")
    .option("--offline", "skip the 1-token request to the model and the token checks with chat platforms")
    .option("--json", "print the checks as JSON")
    .action(async (dir: string | undefined, options: { offline?: boolean; json?: boolean }) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const checks = await runDoctorChecks(io, rootDir, options);
      const ok = checks.every((check) => check.status !== "fail");
      printData(
        io,
        { rootDir, ok, checks },
        {
          json: options.json,
          human: () =>
            [
              `Project: ${rootDir}`,
              ...checks.map(
                (check) =>
                  `${check.status.toUpperCase().padEnd(4)}  ${check.name.padEnd(8)}  ${check.detail}${check.fix && check.status !== "ok" ? `\n${" ".repeat(16)}fix: ${check.fix}` : ""}`,
              ),
              ok ? "All checks passed." : "Some checks failed; each says how to fix it.",
            ].join("\n"),
        },
      );
      if (!ok) throw new CliExit(1, "doctor found failures");
    });
}
