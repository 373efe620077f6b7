/**
 * What `downcity doctor` adds to its sandbox line: the variable names a shell command receives (the
 * minimal set, `shell.env.pass`, `shell.env.set`) and how many are held back. Names only, never
 * values; undefined when the config cannot be read.
 */
export async function describeShellEnvLine(
  rootDir: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  // The config loader and the daemon load zod and the AI SDK: only doctor's full run needs them.
  const [{ loadConfig }, { loadDaemonApi }] = await Promise.all([
    import("@downcity/core"),
    import("../daemon/load-daemon-api.js"),
  ]);
  try {
    const { config, env: configEnv } = await loadConfig(rootDir, { env });
    const view = await (await loadDaemonApi()).describeShellEnv({ rootDir, config, configEnv });
    const set = view.set.length > 0 ? `, set ${view.set.join(", ")}` : "";
    return `shell commands receive ${view.passed.join(", ") || "no variable"} and DC_CTX_*${set}; ${view.withheld.length} withheld (secrets, .env and unlisted; shell.env.pass adds more, a secret only by its exact name)`;
  } catch {
    return undefined;
  }
}
