import type { CapabilityTokens } from "./capability-tokens.js";
import { createCapabilityTokens } from "./capability-tokens.js";
import type { CapabilityScopeOptions } from "./register-capability-scope.js";

/** What the credentials need to know of a shell session (the engine's `status`). */
export type ShellSessionStatus = (shellId: string) => Promise<{ status: string; context_id: string | null }>;

/** The daemon's shell credentials: the token function for the engine and the scope for the HTTP app. */
export interface ShellCredentials {
  tokens: CapabilityTokens;
  /** The engine's `server.token`: a fresh capability token for each session. */
  issue(session: { shellId: string; contextId?: string }): string;
  /** What `buildDaemonApp` needs to accept and scope the tokens. */
  scope: CapabilityScopeOptions;
}

const liveStatuses = new Set(["starting", "running"]);

/**
 * Creates the capability tokens of one daemon's shell sessions. Tokens of ended sessions are
 * refused at once (every request checks the session) and swept from memory as sessions pile up,
 * so a long-lived daemon running many short commands does not keep them all.
 */
export function createShellCredentials(options: {
  status: ShellSessionStatus;
  /** The context of sessions started without one (the user's own CLI calls). */
  defaultContextId: string;
  /** Token count that triggers a sweep of ended sessions [256; doubles while most are live]. */
  sweepAt?: number;
}): ShellCredentials {
  const tokens = createCapabilityTokens();
  const sessionLive = async (shellId: string): Promise<boolean> =>
    liveStatuses.has((await options.status(shellId)).status);
  let sweepAt = options.sweepAt ?? 256;
  let sweeping = false;
  const sweep = async (): Promise<void> => {
    sweeping = true;
    try {
      for (const [token, grant] of tokens.entries())
        if (!(await sessionLive(grant.shellId).catch(() => false))) tokens.revoke(token);
      sweepAt = Math.max(options.sweepAt ?? 256, tokens.size() * 2);
    } finally {
      sweeping = false;
    }
  };
  return {
    tokens,
    issue(session) {
      if (tokens.size() >= sweepAt && !sweeping) void sweep();
      return tokens.issue({
        shellId: session.shellId,
        contextId: session.contextId ?? options.defaultContextId,
      });
    },
    scope: {
      tokens,
      sessionLive,
      sessionContext: async (shellId) => (await options.status(shellId)).context_id,
    },
  };
}
