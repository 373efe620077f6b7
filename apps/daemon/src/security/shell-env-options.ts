import { join } from "node:path";
import { type DowncityConfig, readConfigSection } from "@downcity/core";
import { readEnvFile } from "@downcity/core/internal";
import { selectChildEnv } from "@downcity/shell";
import { shellSection } from "../config/host-sections.js";
import { shellSecretEnv } from "./shell-secret-env.js";

/** The environment options of the daemon's shell engine (see `ShellEngineOptions`). */
export interface ShellEnvOptions {
  env: Record<string, string | undefined>;
  passEnv: string[];
  setEnv: Record<string, string>;
  secretEnv: string[];
}

/**
 * What shell children draw from: the environment over `.env` (so `shell.env.pass` can name a `.env`
 * variable), of which only the minimal set and `shell.env.pass` reach them; every `.env` name and
 * the daemon's own secrets pass only when named exactly.
 */
export async function shellEnvOptions(options: {
  rootDir: string;
  config: DowncityConfig;
  configEnv: Record<string, string | undefined>;
}): Promise<ShellEnvOptions> {
  const section = readConfigSection(options.config, shellSection).value;
  const dotenv = await readEnvFile(join(options.rootDir, ".env"));
  return {
    env: options.configEnv,
    passEnv: section.env.pass,
    setEnv: section.env.set,
    secretEnv: shellSecretEnv({
      config: options.config,
      configEnv: options.configEnv,
      dotenvNames: Object.keys(dotenv),
      listed: section.secretEnv,
    }),
  };
}

/** For `downcity doctor`: the names a shell command receives and those held back (never values). */
export async function describeShellEnv(options: {
  rootDir: string;
  config: DowncityConfig;
  configEnv: Record<string, string | undefined>;
}): Promise<{ passed: string[]; set: string[]; withheld: string[] }> {
  const shellEnv = await shellEnvOptions(options);
  const selected = selectChildEnv({
    base: shellEnv.env,
    pass: shellEnv.passEnv,
    secret: shellEnv.secretEnv,
  });
  return {
    passed: Object.keys(selected.env).sort(),
    set: Object.keys(shellEnv.setEnv).sort(),
    withheld: selected.withheld,
  };
}
