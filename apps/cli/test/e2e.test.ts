import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type OpenAICompatibleServer,
  type ScriptedCall,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { until, watchOutput } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cliMain, runBuiltCli } from "./run-built-cli.js";

/** Scripted model: "exec <cmd>" -> shell_exec, "bg <cmd>" -> shell_start, tool results and shell-exit notices -> text. */
function reply(call: ScriptedCall) {
  const last = call.messages.at(-1);
  if (!last) return "empty";
  if (last.role === "tool") {
    const result = JSON.parse(last.text) as { output?: string; shell_id?: string; exit_code?: number };
    return result.output !== undefined && result.exit_code !== undefined && result.exit_code !== null
      ? `ran: ${result.output.trim()}`
      : `started ${result.shell_id}`;
  }
  if (last.text.includes("[shell-exit]"))
    return `follow-up: ${/exited with code (\d+)/.exec(last.text)?.[1] ?? "?"}`;
  const exec = /^exec (.+)$/.exec(last.text)?.[1];
  if (exec) return { toolCalls: [{ toolName: "shell_exec", input: { command: exec } }] };
  const background = /^bg (.+)$/.exec(last.text)?.[1];
  if (background)
    return { toolCalls: [{ toolName: "shell_start", input: { command: background, yield_ms: 50 } }] };
  return { text: `echo: ${last.text}`, chunkSize: 3 };
}

describe("end to end through the built CLI", () => {
  let home: string;
  let project: string;
  let model: OpenAICompatibleServer;
  const cli = (args: string[], input?: string) =>
    runBuiltCli(args, { cwd: project, env: { DOWNCITY_HOME: home }, ...(input ? { input } : {}) });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "downcity-e2e-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-e2e-project-"));
    model = await startOpenAICompatibleServer({ respond: reply });
    expect((await cli(["init", "."])).code).toBe(0);
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    await writeFile(configPath, JSON.stringify(config, null, 2));
  });

  afterAll(async () => {
    await runBuiltCli(["stop", project], { env: { DOWNCITY_HOME: home } });
    await model.close();
    await rm(home, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  test("start, status, chat send, history, derived shell commands, service commands, stop", async () => {
    const started = await cli(["start", "--json"]);
    expect(started.code, started.stderr).toBe(0);
    const meta = JSON.parse(started.stdout) as { running: boolean; pid: number; port: number };
    expect(meta).toMatchObject({ running: true, rootDir: project });

    const status = await cli(["status", "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: meta.pid, port: meta.port });
    expect((await cli(["start"])).code).toBe(1);

    const sent = await cli(["chat", "send", "--json", "exec", "echo", "hello-from-e2e"]);
    expect(sent.code, sent.stderr).toBe(0);
    const answer = JSON.parse(sent.stdout) as { contextId: string; text: string; steps: number };
    expect(answer).toMatchObject({ contextId: "cli:main", text: "ran: hello-from-e2e", steps: 2 });
    const plain = await cli(["chat", "send", "hi", "--context", "console:side"]);
    expect(plain.stdout).toBe("echo: hi\n");

    const history = await cli(["chat", "history", "--json", "--last", "10"]);
    const messages = (JSON.parse(history.stdout) as { messages: Array<{ role: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    const text = await cli(["chat", "history", "--context", "console:side"]);
    expect(text.stdout).toBe("user: hi\nassistant: echo: hi\n");
    const file = await readFile(
      join(project, ".downcity", "context", "cli%3Amain", "messages", "messages.jsonl"),
      "utf8",
    );
    expect(file).toContain("hello-from-e2e");

    // Inside the agent's shell, DC_CTX_* make `downcity` talk to the same daemon and context.
    const inner = await cli([
      "chat",
      "send",
      "--context",
      "console:agentctx",
      "exec",
      process.execPath,
      cliMain,
      "chat",
      "history",
      "--json",
    ]);
    expect(inner.code, inner.stderr).toBe(0);
    expect(inner.stdout).toContain('"contextId": "console:agentctx"');
    expect(inner.stdout).toContain("user: exec");

    const shells = await cli(["shell", "list", "--json"]);
    expect(shells.code, shells.stderr).toBe(0);
    const sessions = JSON.parse(shells.stdout) as Array<{ shell_id: string; command: string }>;
    const session = sessions.find((entry) => entry.command === "echo hello-from-e2e");
    expect(session).toBeDefined();
    const read = await cli(["shell", "read", session!.shell_id, "--cursor", "0", "--json"]);
    expect(read.code, read.stderr).toBe(0);
    expect((JSON.parse(read.stdout) as { output: string }).output).toContain("hello-from-e2e");
    const viaJson = await cli(["shell", "read", "--json-input", "{}", "sh_doesnotexist"]);
    expect(viaJson.code).toBe(1);
    expect(viaJson.stderr).toContain("shell_id");
    expect((await cli(["shell", "read", session!.shell_id, "--cursor", "x"])).code).toBe(2);

    const list = await cli(["service", "list", "--json"]);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((entry) => entry.name)).toContain(
      "shell",
    );
    const control = await cli(["service", "control", "shell", "status", "--json"]);
    expect(control.code, control.stderr).toBe(0);
    const command = await cli(["service", "command", "shell", "list", "--json-input", "{}", "--json"]);
    expect(command.code, command.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(command.stdout))).toBe(true);
    const bad = await cli(["service", "command", "shell", "read", "--json-input", '{"shell_id":"nope"}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("shell_id");

    const help = await cli(["--help"]);
    expect(help.stdout).toMatch(/\n {2}shell /);
    const derivedHelp = await cli(["shell", "read", "--help"]);
    expect(derivedHelp.code).toBe(0);
    expect(derivedHelp.stdout).toContain("Usage: downcity shell read [options] <shell_id>");
    expect(derivedHelp.stdout).toContain("--json-input <json>");
    expect(derivedHelp.stdout).toContain("--json");

    const stopped = await cli(["stop", "--json"]);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ stopped: true, pid: meta.pid });
    expect((await cli(["status"])).code).toBe(3);
    expect((await cli(["stop", "--json"])).stdout).toContain('"stopped": false');
  });

  test("interactive chat streams the reply and shows the agent's follow-up after a background job", async () => {
    expect((await cli(["start"])).code).toBe(0);
    const child = spawn(process.execPath, [cliMain, "chat", "--context", "console:live"], {
      cwd: project,
      env: { ...process.env, DOWNCITY_HOME: home },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const output = watchOutput(child.stdout);
    const waitFor = (needle: string) => output.waitFor(needle, 15_000);
    await waitFor("Type a message");
    child.stdin.write("hello stream\n");
    await waitFor("agent› echo: hello stream\n");
    child.stdin.write("bg sleep 0.3; echo done\n");
    await waitFor("agent› started sh_");
    await waitFor("agent› follow-up: 0\n");
    // An open chat (SSE plus keep-alive connections) must not hold up a graceful stop.
    const stopStarted = Date.now();
    const stopped = await cli(["stop", "--json"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ stopped: true, killed: false });
    expect(Date.now() - stopStarted).toBeLessThan(8000);
    child.stdin.write("/exit\n");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(output.text.match(/echo: hello stream/g)).toHaveLength(1);
    expect((await cli(["start"])).code).toBe(0);
    expect((await cli(["restart", "--json"])).code).toBe(0);
    expect((await cli(["status"])).code).toBe(0);
    expect((await cli(["stop"])).code).toBe(0);
  });

  test("run keeps the daemon in the foreground and SIGINT stops it gracefully", async () => {
    const child = spawn(process.execPath, [cliMain, "run", project], {
      env: { ...process.env, DOWNCITY_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    await until(
      () => stderr.includes("listening on"),
      () => `the run to start: ${stderr}`,
      15_000,
    );
    expect((await cli(["status"])).code).toBe(0);
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(existsSync(join(project, ".downcity", "debug", "daemon.pid"))).toBe(false);
    expect((await cli(["status"])).code).toBe(3);
  });
});

describe("demo", () => {
  test("announces the scripted stand-in, runs the whole loop and removes its project on exit", async () => {
    const home = await mkdtemp(join(tmpdir(), "downcity-demo-home-"));
    const env: Record<string, string | undefined> = { ...process.env, DOWNCITY_HOME: home };
    delete env.OPENAI_API_KEY;
    delete env.ANTHROPIC_API_KEY;
    const child = spawn(process.execPath, [cliMain, "demo"], {
      env: env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const output = watchOutput(child.stdout);
    const waitFor = (needle: string) => output.waitFor(needle, 20_000);
    try {
      await waitFor("Type a message");
      expect(output.text).toContain("SCRIPTED STAND-IN, not an LLM");
      const projectDir = /Project: (\S+)/.exec(output.text)?.[1] ?? "";
      expect(existsSync(join(projectDir, "downcity.json"))).toBe(true);
      child.stdin.write("run echo demo-ok\n");
      await waitFor("demo-ok\n");
      child.stdin.write("start a background job\n");
      await waitFor("background job done");
      child.stdin.write("/exit\n");
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code).toBe(0);
      expect(existsSync(projectDir)).toBe(false);
    } finally {
      child.kill("SIGKILL");
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("console and agent on/off", () => {
  test("agent on needs the console, registers the daemon, agent off deregisters it", async () => {
    const home = await mkdtemp(join(tmpdir(), "downcity-console-home-"));
    const project = await mkdtemp(join(tmpdir(), "downcity-console-project-"));
    const cli = (args: string[]) => runBuiltCli(args, { cwd: project, env: { DOWNCITY_HOME: home } });
    const extra: string[] = [];
    try {
      expect((await cli(["init"])).code).toBe(0);
      expect((await cli(["console", "status"])).code).toBe(3);
      const refused = await cli(["agent", "on"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("downcity console start");

      expect((await cli(["console", "start", "--json"])).code).toBe(0);
      const on = await cli(["agent", "on", "--json"]);
      expect(on.code, on.stderr).toBe(0);
      const { pid } = JSON.parse(on.stdout) as { pid: number };
      const agents = JSON.parse((await cli(["console", "agents", "--json"])).stdout) as {
        agents: Array<{ projectRoot: string; pid: number }>;
      };
      expect(agents.agents).toEqual([expect.objectContaining({ projectRoot: project, pid })]);
      const status = await cli(["console", "status", "--json"]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ running: true, agents: [{ projectRoot: project }] });
      expect((await cli(["status"])).code).toBe(0);

      // Five `agent on` processes at once: every one registered, agents.json valid JSON throughout.
      const others = await Promise.all(
        Array.from({ length: 5 }, (_, index) => mkdtemp(join(tmpdir(), `downcity-console-p${index}-`))),
      );
      extra.push(...others);
      for (const run of await Promise.all(others.map((root) => cli(["init", root]))))
        expect(run.code).toBe(0);
      const ons = await Promise.all(others.map((root) => cli(["agent", "on", root, "--json"])));
      for (const run of ons) expect(run.code, run.stderr).toBe(0);
      const registry = JSON.parse(await readFile(join(home, "console", "agents.json"), "utf8")) as {
        agents: Array<{ projectRoot: string; pid: number }>;
      };
      expect(registry.agents.map((entry) => entry.projectRoot).sort()).toEqual([project, ...others].sort());
      for (const run of ons) {
        const { projectRoot, pid: agentPid } = JSON.parse(run.stdout) as { projectRoot: string; pid: number };
        expect(registry.agents).toContainEqual(expect.objectContaining({ projectRoot, pid: agentPid }));
      }
      const offs = await Promise.all(others.map((root) => cli(["agent", "off", root, "--json"])));
      for (const run of offs)
        expect(JSON.parse(run.stdout)).toMatchObject({ stopped: true, deregistered: true });

      const off = await cli(["agent", "off", "--json"]);
      expect(JSON.parse(off.stdout)).toMatchObject({ stopped: true, deregistered: true, pid });
      expect((await cli(["status"])).code).toBe(3);
      expect(JSON.parse((await cli(["console", "agents", "--json"])).stdout)).toMatchObject({ agents: [] });
    } finally {
      await Promise.all([project, ...extra].map((root) => cli(["agent", "off", root])));
      await Promise.all(extra.map((root) => rm(root, { recursive: true, force: true })));
      await cli(["console", "stop"]);
      await rm(home, { recursive: true, force: true });
      await rm(project, { recursive: true, force: true });
    }
  });
});
