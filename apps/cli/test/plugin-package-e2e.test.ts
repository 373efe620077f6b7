import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type OpenAICompatibleServer,
  type ScriptedCall,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliRun, runBuiltCli } from "./run-built-cli.js";

const run = promisify(execFile);
const repoDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Packs the package in `dir` with pnpm into `destination` and returns the tarball's path. */
async function pack(dir: string, destination: string): Promise<string> {
  const before = new Set(await readdir(destination));
  await run("npx", ["-y", "pnpm@10", "pack", "--pack-destination", destination], {
    cwd: dir,
    timeout: 120000,
  });
  const created = (await readdir(destination)).find((name) => name.endsWith(".tgz") && !before.has(name));
  if (!created) throw new Error(`pnpm pack in ${dir} produced no tarball`);
  return join(destination, created);
}

/** "weather in <city>" -> the plug-in's weather_now tool; a tool result -> "tool said: …". */
function reply(call: ScriptedCall) {
  const last = call.messages.at(-1);
  if (last?.role === "tool") return `tool said: ${last.text}`;
  const city = /^weather in (\w+)/.exec(last?.text ?? "")?.[1];
  if (city) return { toolCalls: [{ toolName: "weather_now", input: { city } }] };
  return "no idea";
}

const expectExit = (result: CliRun, code: number) => expect(result.code, result.stderr).toBe(code);
const json = <T>(result: CliRun): T => {
  expectExit(result, 0);
  return JSON.parse(result.stdout) as T;
};

interface PluginRow {
  name: string;
  source: string;
  version?: string;
  state: string;
  error?: { message: string };
}

describe("a third-party plug-in packed as a tarball and installed with npm", () => {
  let work: string;
  let home: string;
  let project: string;
  let model: OpenAICompatibleServer;
  const cli = (args: string[]) => runBuiltCli(args, { cwd: project, env: { DOWNCITY_HOME: home } });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "downcity-plugin-pack-"));
    home = join(work, "home");
    project = join(work, "project");
    await mkdir(project, { recursive: true });
    const tarballs = join(work, "tarballs");
    await mkdir(tarballs);
    // The plug-in's peer @downcity/core comes from this repository too, as a tarball.
    const core = await pack(join(repoDir, "packages", "core"), tarballs);
    const plugin = await pack(join(repoDir, "examples", "plugin-weather"), tarballs);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "weather-project", private: true }),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", core, plugin], {
      cwd: project,
      timeout: 240000,
    });
    model = await startOpenAICompatibleServer({ respond: reply });
    expectExit(await cli(["init", "."]), 0);
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    config.plugins = ["@acme/downcity-weather", "./plugins/broken.mjs"];
    config.weather = { unit: "F" };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await mkdir(join(project, "plugins"));
    await writeFile(
      join(project, "plugins", "broken.mjs"),
      'export default { name: "broken", setup() { throw new Error("broken on purpose"); } };\n',
    );
    // The broken plug-in makes the start "started, degraded" (exit 5): the daemon runs without it.
    expectExit(await cli(["start", "--json"]), 5);
  }, 300000);

  afterAll(async () => {
    if (project) await runBuiltCli(["stop", project], { env: { DOWNCITY_HOME: home } });
    await model?.close();
    await rm(work, { recursive: true, force: true });
  });

  test("the daemon loads it by name from the project; a broken plug-in is reported, never fatal", async () => {
    const plugins = json<PluginRow[]>(await cli(["plugins", "list", "--json"]));
    expect(plugins.find((row) => row.name === "weather")).toEqual({
      name: "weather",
      source: "@acme/downcity-weather",
      version: "1.0.0",
      state: "loaded",
    });
    expect(plugins.find((row) => row.source === "./plugins/broken.mjs")).toMatchObject({
      state: "failed",
      error: { message: "broken on purpose" },
    });
    expect(plugins.filter((row) => row.source === "builtin").map((row) => [row.name, row.state])).toEqual([
      ["mcp", "loaded"],
      ["skills", "loaded"],
      ["memory", "loaded"],
      ["tasks", "loaded"],
    ]);
    const human = await cli(["plugins", "list"]);
    expectExit(human, 0);
    expect(human.stdout).toMatch(/weather\s+loaded\s+1\.0\.0\s+@acme\/downcity-weather/);
    expect(human.stdout).toContain("broken on purpose");
    const status = json<{ running: boolean; plugins?: PluginRow[] }>(await cli(["status", "--json"]));
    expect(status.running).toBe(true);
    expect(status.plugins?.map((row) => row.name)).toContain("weather");
    // Its section gets editor completion in the generated schema.
    const schema = JSON.parse(
      await readFile(join(project, ".downcity", "schema", "downcity.schema.json"), "utf8"),
    );
    expect(schema.properties.weather.properties.unit.enum).toEqual(["C", "F"]);
  });

  test("docs/writing-a-plugin.md shows this exact plug-in", async () => {
    const example = await readFile(join(repoDir, "examples", "plugin-weather", "index.mjs"), "utf8");
    const docs = await readFile(join(repoDir, "docs", "writing-a-plugin.md"), "utf8");
    expect(docs).toContain(`\`\`\`js\n${example}\`\`\``);
    expect(example.trimEnd().split("\n").length).toBeLessThan(40);
  });

  test("the scripted model calls its tool, and its service is a derived command", async () => {
    const answer = json<{ text: string }>(await cli(["chat", "send", "weather in Oslo", "--json"]));
    expect(answer.text).toBe('tool said: {"city":"Oslo","temperature":57,"unit":"F"}');
    const forecast = json<unknown>(await cli(["weather", "forecast", "Bergen", "--json"]));
    expect(forecast).toEqual({ city: "Bergen", temperature: 61, unit: "F" });
    const help = await cli(["weather", "--help"]);
    expectExit(help, 0);
    expect(help.stdout).toContain("forecast");
  });
});
