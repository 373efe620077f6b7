import { selectChildEnv } from "./select-child-env.js";

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
  /** Base variables passed besides the minimal set: names or globs (see `selectChildEnv`). */
  pass?: readonly string[] | undefined;
  /** Variable names (or patterns) the host marks secret; only an exact name in `pass` lets one through. */
  secret: ReadonlyArray<string | RegExp>;
  /** Values set in every child (after the pass filter, before the call's own `env`). */
  set?: Record<string, string> | undefined;
  overrides?: Record<string, string> | undefined;
  tty: boolean;
  context: ChildEnvContext;
}

/**
 * Builds a child's environment: the minimal set of the host's variables plus those passed (never a
 * secret by glob), the host's fixed values, non-interactive defaults, the caller's overrides, and
 * the `DC_CTX_*` variables, which always win.
 */
export function buildChildEnv(options: BuildChildEnvOptions): Record<string, string> {
  const { env } = selectChildEnv({ base: options.base, pass: options.pass, secret: options.secret });
  Object.assign(env, options.set ?? {});
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
