import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ConfigSection,
  type DowncityConfig,
  loadConfig,
  type Plugin,
  readConfigSection,
  unclaimedConfigSections,
  unclaimedSectionsError,
} from "@downcity/core";
import {
  type ConfigProblem,
  ConfigProblemsError,
  channelAccessSchema,
  configProblemsFromZod,
  problemsOf,
} from "@downcity/core/internal";
import { loadChannels } from "../channels/load-channels.js";
import { builtinPlugins } from "../plugin-loader/builtin-plugins.js";
import { collectPlugins } from "../plugin-loader/collect-plugins.js";
import { hostSections, startSection } from "./host-sections.js";
import { listenAddressOf, probePort } from "./port-available.js";

/**
 * What a problem takes down: `config` stops the daemon from starting; `channel` and `plugin` start it
 * degraded (that channel or plug-in fails, the rest runs); `model` fails the first message; `port`
 * is a listen address another process holds.
 */
export type ProblemKind = "config" | "channel" | "plugin" | "model" | "port";

/** One problem of a project's configuration, with the field to blame and, when known, the fix. */
export interface ProjectConfigProblem extends ConfigProblem {
  kind: ProblemKind;
  fix?: string;
}

/** The outcome of `validateProjectConfig`. */
export interface ProjectConfigReport {
  rootDir: string;
  /** Empty when the daemon would start with everything running. */
  problems: ProjectConfigProblem[];
  config?: DowncityConfig;
  /** The environment over `.env`, as the daemon sees it. */
  env?: Record<string, string | undefined>;
}

/** Options of `validateProjectConfig`. */
export interface ValidateProjectConfigOptions {
  rootDir: string;
  env?: Record<string, string | undefined>;
  /** Probe every listen port (`start.port`, channels' `listen`) [false: a running daemon holds them]. */
  checkPorts?: boolean;
  /** The built-in plug-ins [the daemon's own]. */
  plugins?: readonly Plugin[];
}

function modelProblem(
  llm: DowncityConfig["llm"],
  env: Record<string, string | undefined>,
): ProjectConfigProblem | undefined {
  if (!llm) {
    return {
      kind: "model",
      field: "llm",
      message: 'downcity.json has no "llm": every message would fail',
      fix: "downcity init --provider openai --model gpt-4.1-mini (docs/models.md lists the others)",
    };
  }
  const variable =
    llm.provider === "anthropic" ? "ANTHROPIC_API_KEY" : llm.provider === "openai" ? "OPENAI_API_KEY" : "";
  // Same rule as the daemon's model factory: openai with a baseURL may be a keyless local server.
  const needsKey = llm.provider === "anthropic" || (llm.provider === "openai" && !llm.baseURL);
  if (needsKey && !llm.apiKey && !env[variable]) {
    return {
      kind: "model",
      field: "llm.apiKey",
      message: `"llm.provider": "${llm.provider}" has no API key: "llm.apiKey" is unset and ${variable} is in neither the environment nor .env`,
      fix: `Put ${variable}=... in .env and "apiKey": "\${${variable}}" under "llm"`,
    };
  }
  if (llm.provider === "openai-compatible" && !llm.baseURL) {
    return {
      kind: "model",
      field: "llm.baseURL",
      message: '"llm.provider": "openai-compatible" needs "llm.baseURL"',
      fix: 'e.g. "baseURL": "http://127.0.0.1:11434/v1" for Ollama',
    };
  }
  return undefined;
}

/** The file as written, for checking the other sections when core's fail; undefined if unreadable. */
async function readRawConfig(rootDir: string): Promise<DowncityConfig | undefined> {
  try {
    const raw = JSON.parse(await readFile(join(rootDir, "downcity.json"), "utf8")) as unknown;
    return typeof raw === "object" && raw !== null && !Array.isArray(raw)
      ? (raw as DowncityConfig)
      : undefined;
  } catch {
    return undefined;
  }
}

async function portProblem(
  host: string,
  port: number,
  field: string,
  owner: string,
): Promise<ProjectConfigProblem | undefined> {
  if (port === 0) return undefined;
  const probe = await probePort(host, port);
  if (probe.free) return undefined;
  const why =
    probe.code === "EADDRINUSE" ? "is in use by another process" : `cannot be bound (${probe.code})`;
  return {
    kind: "port",
    field,
    message: `${owner}: ${host}:${port} ${why}`,
    fix:
      probe.code === "EACCES"
        ? `set "${field}" above 1023`
        : `set another "${field}" in downcity.json${field === "start.port" ? " (0 picks a free one)" : ""}, or stop the process that holds ${port}`,
  };
}

/** `error`'s problems under `field`, each tagged with what it takes down. */
const problemsAs = (kind: ProblemKind, error: unknown, field: string): ProjectConfigProblem[] =>
  problemsOf(error, field).map((problem) => ({ ...problem, kind }));

type PluginEntries = Awaited<ReturnType<typeof collectPlugins>>;

/** Plug-ins that do not load, sections no one claims, and the host's and plug-ins' invalid sections. */
function sectionProblems(sections: DowncityConfig, entries: PluginEntries): ProjectConfigProblem[] {
  const problems: ProjectConfigProblem[] = [];
  const plugins = entries.flatMap((entry) => (entry.plugin ? [entry.plugin] : []));
  for (const entry of entries) {
    if (entry.loadError) {
      problems.push({
        kind: "plugin",
        field: "plugins",
        message: `plug-in "${entry.source}" does not load: ${entry.loadError instanceof Error ? entry.loadError.message : String(entry.loadError)}`,
      });
    }
  }
  const hostNames = hostSections.map((section) => section.name);
  const installed = plugins.map((plugin) => plugin.name);
  // With every plug-in loaded the daemon refuses such a file; otherwise the missing one may own it.
  const unclaimedKind = entries.every((entry) => entry.plugin) ? "config" : "plugin";
  for (const name of unclaimedConfigSections(sections, [...hostNames, ...installed])) {
    const { message } = unclaimedSectionsError([name], installed, hostNames);
    problems.push({ kind: unclaimedKind, field: name, message });
  }
  const owned: Array<[ProblemKind, ConfigSection]> = [
    ...(hostSections as readonly ConfigSection[]).map((section): [ProblemKind, ConfigSection] => [
      "config",
      section,
    ]),
    ...plugins.map((plugin): [ProblemKind, ConfigSection] => ["plugin", plugin]),
  ];
  for (const [kind, section] of owned) {
    try {
      readConfigSection(sections, section);
    } catch (error) {
      problems.push(...problemsAs(kind, error, section.name));
    }
  }
  return problems;
}

/** Every channel's adapter, access and options; with `checkPorts`, the probes of their listen ports. */
async function channelProblems(
  rootDir: string,
  config: DowncityConfig,
  checkPorts: boolean,
): Promise<{ problems: ProjectConfigProblem[]; ports: Array<Promise<ProjectConfigProblem | undefined>> }> {
  const problems: ProjectConfigProblem[] = [];
  const ports: Array<Promise<ProjectConfigProblem | undefined>> = [];
  for (const instance of await loadChannels(rootDir, config.channels)) {
    const field = `channels.${instance.name}`;
    const add = (found: ConfigProblem[]) =>
      problems.push(...found.map((problem) => ({ ...problem, kind: "channel" as const })));
    if (instance.loadError) {
      add(problemsOf(instance.loadError, `${field}.adapter`));
      continue;
    }
    const access = channelAccessSchema.safeParse(instance.access ?? {});
    if (!access.success)
      add(configProblemsFromZod(access.error, { schema: channelAccessSchema, prefix: `${field}.access` }));
    const schema = instance.definition?.options;
    const parsed = schema?.safeParse(instance.options ?? {});
    if (parsed && !parsed.success) {
      add(configProblemsFromZod(parsed.error, { schema, prefix: field, extraKeys: ["adapter", "access"] }));
      continue;
    }
    const address = listenAddressOf((parsed?.data ?? {}) as Record<string, unknown>);
    if (checkPorts && address) {
      const owner = `channel "${instance.name}"`;
      ports.push(portProblem(address.host, address.port, `${field}.${address.field}`, owner));
    }
  }
  return { problems, ports };
}

/**
 * Validates a project exactly as its daemon does at start-up, without starting anything: the file
 * and core's sections, sections no one claims, the host's and every plug-in's section, every channel
 * (adapter, access and options), the model's API key, and optionally the listen ports. Every problem
 * is listed; none is thrown. `doctor`, `start`, `restart` and the console's restart all use it.
 */
export async function validateProjectConfig(
  options: ValidateProjectConfigOptions,
): Promise<ProjectConfigReport> {
  const { rootDir } = options;
  const problems: ProjectConfigProblem[] = [];
  let loaded: Awaited<ReturnType<typeof loadConfig>> | undefined;
  // When core's sections fail, the sections of the host and the plug-ins are still checked on the
  // raw file, so one pass lists every problem.
  let sections: DowncityConfig;
  try {
    loaded = await loadConfig(rootDir, { env: options.env ?? process.env });
    sections = loaded.config;
  } catch (error) {
    problems.push(...problemsAs("config", error, "downcity.json"));
    const raw = error instanceof ConfigProblemsError ? await readRawConfig(rootDir) : undefined;
    if (!raw) return { rootDir, problems };
    sections = raw;
  }
  const specifiers = Array.isArray(sections.plugins)
    ? sections.plugins.filter((item): item is string => typeof item === "string")
    : [];
  const entries = await collectPlugins({
    rootDir,
    builtins: options.plugins ?? builtinPlugins,
    specifiers,
  });
  problems.push(...sectionProblems(sections, entries));
  if (!loaded) return { rootDir, problems };
  const { config, env } = loaded;
  const channels = await channelProblems(rootDir, config, options.checkPorts ?? false);
  problems.push(...channels.problems);
  const model = modelProblem(config.llm, env);
  if (model) problems.push(model);
  const ports = channels.ports;
  if (options.checkPorts) {
    try {
      const start = readConfigSection(config, startSection).value;
      ports.push(portProblem(start.host, start.port, "start.port", "the daemon's API"));
    } catch {
      // Reported above as a problem of the start section.
    }
  }
  for (const problem of await Promise.all(ports)) if (problem) problems.push(problem);
  return { rootDir, problems, config, env };
}
