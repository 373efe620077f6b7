/**
 * What `downcity doctor` adds to its sandbox line: the variable names a shell command receives (the
 * minimal set, `shell.env.pass`, `shell.env.set`) and how many are held back. Names only, never
 * values; undefined when the config cannot be read. `warning` when a channel admits anyone while
 * approvals are off and the sandbox is off: strangers then get the shell unchecked.
 */
export async function describeShellEnvLine(
  rootDir: string,
  env: Record<string, string | undefined>,
): Promise<{ detail: string; warning?: string } | undefined> {
  // The config loader and the daemon load zod and the AI SDK: only doctor's full run needs them.
  const [{ loadConfig }, { loadDaemonApi }] = await Promise.all([
    import("@downcity/core"),
    import("../daemon/load-daemon-api.js"),
  ]);
  try {
    const { config, env: configEnv } = await loadConfig(rootDir, { env });
    const view = await (await loadDaemonApi()).describeShellEnv({ rootDir, config, configEnv });
    const set = view.set.length > 0 ? `, set ${view.set.join(", ")}` : "";
    const warning = strangersWithoutGuard(config);
    const detail = `shell commands receive ${view.passed.join(", ") || "no variable"} and DC_CTX_*${set}; ${view.withheld.length} withheld (secrets, .env and unlisted; shell.env.pass adds more, a secret only by its exact name)`;
    return warning ? { detail, warning } : { detail };
  } catch {
    return undefined;
  }
}

function strangersWithoutGuard(config: {
  channels?: Record<string, unknown>;
  approvals?: unknown;
  shell?: unknown;
}): string | undefined {
  const approvals = (config.approvals as { mode?: string } | undefined)?.mode ?? "off";
  const sandbox =
    (config.shell as { sandbox?: { enabled?: boolean } } | undefined)?.sandbox?.enabled === true;
  if (approvals !== "off" || sandbox) return undefined;
  const open = Object.entries(config.channels ?? {})
    .filter(([, settings]) => {
      const access = (settings as { access?: { dm?: string; groups?: string } }).access;
      return access?.dm === "open" || access?.groups === "open";
    })
    .map(([name]) => name);
  if (open.length === 0) return undefined;
  return `${open.join(", ")} admit${open.length === 1 ? "s" : ""} anyone (access open) while approvals are off and the sandbox is off: strangers get the shell unchecked; set "approvals": { "mode": "ask" } or shell.sandbox.enabled`;
}
