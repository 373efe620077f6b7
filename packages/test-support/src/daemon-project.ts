import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { downcityPaths } from "@downcity/core";
import { type CliRun, ensureBuiltCli, runCli } from "./built-cli.js";

/** What `DaemonProject.init` writes over the `downcity init` defaults. */
export interface DaemonProjectConfig {
  /** The base URL of a scripted model: `llm` becomes an openai-compatible provider pointing there. */
  modelUrl: string;
  /** The `channels` section of `downcity.json`. */
  channels: Record<string, unknown>;
  /** The project's `.env` (the secrets the channels name as `${VAR}`). */
  env: Record<string, string>;
  /** Other top-level sections of `downcity.json` (`media`, `approvals`, ...), written as given. */
  settings?: Record<string, unknown>;
}

/** A project folder and a DOWNCITY_HOME of its own, driven through the built `downcity` CLI. */
export interface DaemonProject {
  /** The project folder, the working directory of every run. */
  readonly dir: string;
  readonly home: string;
  /** Runs `downcity <args>` and collects its output. */
  cli(args: string[]): Promise<CliRun>;
  /** Runs `downcity <args>` (the caller adds `--json`), requires exit code 0 and returns the parsed output. */
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** `downcity init .`, then the model, the channels and the `.env` of `config`. */
  init(config: DaemonProjectConfig): Promise<void>;
  /** The text of each log the daemon wrote: its `debug/daemon.log` (unless `dailyOnly`) and the daily logs. */
  readLogs(options?: { dailyOnly?: boolean }): Promise<string[]>;
  /** Stops the daemon if it runs, and removes both folders. */
  dispose(): Promise<void>;
}

/**
 * Makes a fresh project for end-to-end runs of the built CLI and its daemon, rebuilding the CLI and
 * what it runs first where stale. `name` goes into the temp folder names.
 */
export async function createDaemonProject(name: string): Promise<DaemonProject> {
  const cliMain = ensureBuiltCli();
  const home = await mkdtemp(join(tmpdir(), `downcity-${name}-home-`));
  const dir = await mkdtemp(join(tmpdir(), `downcity-${name}-project-`));
  const paths = downcityPaths(dir);
  const cli = (args: string[]) => runCli(cliMain, args, { cwd: dir, env: { DOWNCITY_HOME: home } });
  const json = async <T>(args: string[]): Promise<T> => {
    const run = await cli(args);
    if (run.code !== 0)
      throw new Error(`downcity ${args.join(" ")} exited with ${run.code}:\n${run.stderr}${run.stdout}`);
    return JSON.parse(run.stdout) as T;
  };
  return {
    dir,
    home,
    cli,
    json,
    async init(config) {
      await json(["init", ".", "--json"]);
      const configPath = join(dir, "downcity.json");
      const written = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
      written.llm = { provider: "openai-compatible", model: "scripted", baseURL: config.modelUrl };
      written.channels = config.channels;
      Object.assign(written, config.settings);
      await writeFile(configPath, JSON.stringify(written, null, 2));
      const env = Object.entries(config.env).map(([key, value]) => `${key}=${value}\n`);
      await writeFile(join(dir, ".env"), env.join(""));
    },
    async readLogs(options = {}) {
      const files = options.dailyOnly ? [] : [join(paths.debugDir, "daemon.log")];
      for (const file of await readdir(paths.logsDir).catch(() => [])) files.push(join(paths.logsDir, file));
      return Promise.all(files.map((file) => readFile(file, "utf8").catch(() => "")));
    },
    async dispose() {
      await cli(["stop", "--json"]).catch(() => undefined);
      await rm(home, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
