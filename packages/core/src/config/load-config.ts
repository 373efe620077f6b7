import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DowncityError } from "../errors/downcity-error.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { downcityPaths } from "../paths/downcity-paths.js";
import { ConfigProblemsError, configProblemsFromZod } from "./config-problems.js";
import { type DowncityConfig, downcityConfigSchema } from "./config-schema.js";
import { type ConfigSection, downcityConfigJsonSchema } from "./config-sections.js";
import { readEnvFile } from "./env-file.js";
import { parseConfigJson } from "./parse-config-json.js";

/** A loaded project configuration and where it came from. */
export interface LoadedConfig {
  config: DowncityConfig;
  path: string;
  /** The environment used for `${VAR}` substitution: process env over `.env`. */
  env: Record<string, string | undefined>;
}

/** Replaces `${VAR}` in every string of `value`; an unset variable is an error naming the field. */
export function substituteEnv(value: unknown, env: Record<string, string | undefined>, path = ""): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const replacement = env[name];
      if (replacement === undefined) {
        throw new DowncityError(
          "CONFIG_ENV_MISSING",
          `downcity.json field "${path || "(root)"}" uses \${${name}}, but ${name} is not set. Set it in the environment or in .env.`,
          { field: path || "(root)" },
        );
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substituteEnv(item, env, `${path}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        substituteEnv(item, env, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}

/**
 * Loads `.env` and `downcity.json` from `rootDir`, substitutes `${VAR}` and validates core's sections;
 * plug-in sections are validated by `setupPlugins` (see `readConfigSection`).
 */
export async function loadConfig(
  rootDir: string,
  options: { env?: Record<string, string | undefined> } = {},
): Promise<LoadedConfig> {
  const path = join(rootDir, "downcity.json");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new DowncityError(
        "CONFIG_NOT_FOUND",
        `No downcity.json in ${rootDir}. Run "downcity init" there first.`,
        {
          field: "downcity.json",
        },
      );
    }
    throw error;
  }
  const raw = parseConfigJson(text, path);
  const env = { ...(await readEnvFile(join(rootDir, ".env"))), ...(options.env ?? process.env) };
  const parsed = downcityConfigSchema.safeParse(substituteEnv(raw, env));
  if (!parsed.success) {
    throw new ConfigProblemsError(
      path,
      configProblemsFromZod(parsed.error, { schema: downcityConfigSchema }),
      { cause: parsed.error },
    );
  }
  return { config: parsed.data, path, env };
}

/** Writes the JSON Schema of core plus `sections` to `.downcity/schema/downcity.schema.json`. */
export async function writeConfigJsonSchema(
  rootDir: string,
  sections: readonly ConfigSection[] = [],
): Promise<string> {
  const path = downcityPaths(rootDir).schemaFile;
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(downcityConfigJsonSchema(sections), null, 2)}\n`);
  return path;
}
