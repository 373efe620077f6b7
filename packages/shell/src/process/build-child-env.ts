/** Values the host injects so a `downcity …` command run inside the shell talks back to it. */
export interface ChildEnvContext {
  shellId: string;
  contextId?: string | undefined;
  requestId?: string | undefined;
  serverHost?: string | undefined;
  serverPort?: number | string | undefined;
  token?: string | undefined;
}

/** Inputs of `buildChildEnv`. */
export interface BuildChildEnvOptions {
  base: Record<string, string | undefined>;
  /** Variable names (or patterns) the host marks secret; they never reach the child. */
  secret: ReadonlyArray<string | RegExp>;
  overrides?: Record<string, string> | undefined;
  tty: boolean;
  context: ChildEnvContext;
}

/**
 * Builds a child's environment: the host's variables minus secrets, non-interactive defaults,
 * the caller's overrides, and the `DC_CTX_*` variables, which always win.
 */
export function buildChildEnv(options: BuildChildEnvOptions): Record<string, string> {
  const isSecret = (name: string): boolean =>
    options.secret.some((rule) => (typeof rule === "string" ? rule === name : rule.test(name)));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value !== undefined && !isSecret(name) && !name.startsWith("DC_CTX_")) env[name] = value;
  }
  env.PAGER = "cat";
  env.GIT_PAGER = "cat";
  env.GIT_TERMINAL_PROMPT = "0";
  env.TERM = options.tty ? "xterm-256color" : "dumb";
  Object.assign(env, options.overrides ?? {});
  const { context } = options;
  env.DC_CTX_SHELL_ID = context.shellId;
  if (context.contextId !== undefined) env.DC_CTX_CONTEXT_ID = context.contextId;
  if (context.requestId !== undefined) env.DC_CTX_REQUEST_ID = context.requestId;
  if (context.serverHost !== undefined) env.DC_CTX_SERVER_HOST = context.serverHost;
  if (context.serverPort !== undefined) env.DC_CTX_SERVER_PORT = String(context.serverPort);
  if (context.token !== undefined) env.DC_CTX_TOKEN = context.token;
  return env;
}
