import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import {
  DowncityError,
  downcityPaths,
  errorFromZod,
  type LlmConfig,
  writeConfigJsonSchema,
  writeFileAtomic,
} from "@downcity/core";
import { llmConfigSchema, parseEnvFile } from "@downcity/core/internal";
import { hostSections } from "../config/host-sections.js";
import { builtinPlugins } from "../plugin-loader/builtin-plugins.js";

/** What `initProject` wrote, changed and left alone. */
export interface InitProjectResult {
  rootDir: string;
  created: string[];
  /** Existing files that gained something (`downcity.json` its `llm`, `.env` the key). */
  updated: string[];
  skipped: string[];
  /** The `llm` section now in `downcity.json`, if any (the key as its `${VAR}` reference). */
  llm?: LlmConfig;
  /** What is still missing before the model answers, e.g. an API key to put in `.env`. */
  todo: string[];
}

/** The model choice `initProject` writes into `llm`: provider, model id and, when needed, the endpoint and key. */
export interface InitModelOptions {
  provider: LlmConfig["provider"];
  model: string;
  baseURL?: string;
  /** Stored in `.env` (never in downcity.json), referenced from `llm.apiKey` as `${apiKeyEnv}`. */
  apiKey?: string;
  /** The variable holding the key [OPENAI_API_KEY, ANTHROPIC_API_KEY, or LLM_API_KEY for openai-compatible]. */
  apiKeyEnv?: string;
}

/** The environment variable a provider's key is read from unless `apiKeyEnv` names another. */
export const defaultApiKeyEnv: Record<LlmConfig["provider"], string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "LLM_API_KEY",
};

const gitignoreLines = [".downcity/*", "!.downcity/schema/", ".env"];

const profileText = (name: string) => `# ${name}

You are the agent of this project. You can run shell commands in the project folder.

- Be brief and concrete; say what you ran and what happened.
- Ask before deleting files or running anything destructive.
`;

async function writeIfAbsent(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function envLine(name: string, value: string): string {
  // Plain when safe; else double-quoted, which util.parseEnv reads back with \n and \" intact.
  if (/^[\w.\-/:+=@]*$/.test(value)) return `${name}=${value}`;
  return `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function modelSection(model: InitModelOptions): { llm: LlmConfig; keyEnv: string } {
  const keyEnv = model.apiKeyEnv ?? defaultApiKeyEnv[model.provider];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `"${keyEnv}" is not an environment variable name; use letters, digits and _ (e.g. OPENAI_API_KEY)`,
      { field: "llm.apiKey" },
    );
  }
  if (model.provider === "openai-compatible" && !model.baseURL) {
    throw new DowncityError(
      "CONFIG_INVALID",
      'llm.baseURL is required for "openai-compatible": pass --base-url, e.g. http://127.0.0.1:11434/v1 for Ollama',
      { field: "llm.baseURL" },
    );
  }
  const llm = {
    provider: model.provider,
    model: model.model,
    ...(model.baseURL ? { baseURL: model.baseURL } : {}),
  } as LlmConfig;
  const parsed = llmConfigSchema.safeParse(llm);
  if (!parsed.success)
    throw errorFromZod(parsed.error, { what: "model settings", code: "CONFIG_INVALID", prefix: "llm" });
  // Written as given: defaults stay out of downcity.json so they can change with the schema.
  return { llm, keyEnv };
}

/** Adds `name=value` to `.env` unless it defines `name` already; returns what happened to the file. */
async function storeKey(
  rootDir: string,
  name: string,
  value: string,
): Promise<"created" | "updated" | "kept"> {
  const path = join(rootDir, ".env");
  const current = await readFile(path, "utf8").catch(() => undefined);
  if (current === undefined) {
    await writeFile(path, `${envLine(name, value)}\n`, { mode: 0o600 });
    return "created";
  }
  if (parseEnvFile(current)[name] !== undefined) return "kept";
  const prefix = current && !current.endsWith("\n") ? "\n" : "";
  await appendFile(path, `${prefix}${envLine(name, value)}\n`);
  return "updated";
}

/**
 * Initialises a project: PROFILE.md, downcity.json, .downcity/ with the config schema, .gitignore
 * entries; with `model`, the `llm` section (the key kept in `.env` as `${VAR}`). Never overwrites:
 * an existing downcity.json only gains `llm` when it has none.
 */
export async function initProject(
  dir: string,
  options: {
    name?: string;
    /** A model choice, validated; its key goes to `.env`. */
    model?: InitModelOptions;
    /** An `llm` section written verbatim (tests and embedders that build it themselves). */
    llm?: Partial<LlmConfig>;
  } = {},
): Promise<InitProjectResult> {
  const rootDir = resolve(dir);
  const chosen = options.model ? modelSection(options.model) : undefined;
  await mkdir(rootDir, { recursive: true });
  const result: InitProjectResult = { rootDir, created: [], updated: [], skipped: [], todo: [] };
  const name = options.name ?? basename(rootDir);
  const record = (file: string, wrote: boolean) => (wrote ? result.created : result.skipped).push(file);

  record("PROFILE.md", await writeIfAbsent(join(rootDir, "PROFILE.md"), profileText(name)));

  let llm = options.llm as LlmConfig | undefined;
  if (chosen && options.model) {
    llm = chosen.llm;
    const dotenv = await readEnvFileText(rootDir);
    if (options.model.apiKey) {
      const stored = await storeKey(rootDir, chosen.keyEnv, options.model.apiKey);
      if (stored === "kept") {
        result.skipped.push(".env");
        result.todo.push(`.env already defines ${chosen.keyEnv}; edit it there to change the key.`);
      } else result[stored].push(".env");
      llm = { ...llm, apiKey: `\${${chosen.keyEnv}}` };
    } else if (dotenv[chosen.keyEnv] !== undefined || options.model.apiKeyEnv) {
      llm = { ...llm, apiKey: `\${${chosen.keyEnv}}` };
    } else if (llm.provider !== "openai-compatible" && process.env[chosen.keyEnv] === undefined) {
      // Without llm.apiKey the daemon reads the provider's standard variable from its environment.
      result.todo.push(
        `Put your key in .env as ${chosen.keyEnv}=... (or export it), then "llm.apiKey": "\${${chosen.keyEnv}}" picks it up.`,
      );
    }
  }

  const configPath = join(rootDir, "downcity.json");
  const config = { $schema: "./.downcity/schema/downcity.schema.json", name, ...(llm ? { llm } : {}) };
  if (await writeIfAbsent(configPath, `${JSON.stringify(config, null, 2)}\n`)) {
    result.created.push("downcity.json");
    result.llm = llm;
  } else {
    const existing = await readExistingConfig(configPath);
    if (llm && existing.llm === undefined) {
      await writeFileAtomic(configPath, `${JSON.stringify({ ...existing, llm }, null, 2)}\n`);
      result.updated.push("downcity.json");
      result.llm = llm;
    } else {
      result.skipped.push("downcity.json");
      if (llm) result.todo.push('downcity.json already has "llm"; edit it there to change the model.');
      result.llm = existing.llm as LlmConfig | undefined;
    }
  }

  const schemaExisted = existsSync(downcityPaths(rootDir).schemaFile);
  // The schema is generated from the zod schemas, so refreshing it is not overwriting a user file.
  await writeConfigJsonSchema(rootDir, [...hostSections, ...builtinPlugins]);
  record(".downcity/schema/downcity.schema.json", !schemaExisted);

  const gitignorePath = join(rootDir, ".gitignore");
  const current = await readFile(gitignorePath, "utf8").catch(() => undefined);
  const present = new Set((current ?? "").split(/\r?\n/).map((line) => line.trim()));
  const missing = gitignoreLines.filter((line) => !present.has(line));
  if (missing.length > 0) {
    const prefix = current && !current.endsWith("\n") ? "\n" : "";
    await appendFile(gitignorePath, `${prefix}# downcity runtime state\n${missing.join("\n")}\n`);
    result.created.push(".gitignore");
  } else result.skipped.push(".gitignore");
  return result;
}

async function readEnvFileText(rootDir: string): Promise<Record<string, string>> {
  const text = await readFile(join(rootDir, ".env"), "utf8").catch(() => "");
  return parseEnvFile(text);
}

async function readExistingConfig(path: string): Promise<Record<string, unknown>> {
  const text = await readFile(path, "utf8");
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new DowncityError(
    "CONFIG_INVALID",
    `${path} is not a JSON object; fix or delete it, then run "downcity init" again`,
    { field: "downcity.json" },
  );
}
