import { randomBytes } from "node:crypto";

/** What a shell child's capability token grants: its daemon, its shell session and its chat. */
export interface CapabilityGrant {
  shellId: string;
  contextId: string;
}

/**
 * The capability tokens one daemon issued to its shell children. They live only in this
 * daemon's memory: another daemon, the console or a restarted daemon never knows them.
 */
export interface CapabilityTokens {
  /** Issues a fresh token for one shell session acting for one context. */
  issue(grant: CapabilityGrant): string;
  /** The grant of a token this daemon issued and has not revoked. */
  lookup(token: string): CapabilityGrant | undefined;
  /** Revokes a token (its session ended). */
  revoke(token: string): void;
  /** Revokes every token (daemon shutdown). */
  revokeAll(): void;
  /** How many tokens are live, for tests and status. */
  size(): number;
  /** A snapshot of every live token and its grant. */
  entries(): Array<[string, CapabilityGrant]>;
}

/** Prefix that tells a capability token apart from the user-level token in errors and logs. */
export const capabilityTokenPrefix = "dcc_";

/** Creates an empty in-memory token table. */
export function createCapabilityTokens(): CapabilityTokens {
  const grants = new Map<string, CapabilityGrant>();
  return {
    issue(grant) {
      const token = `${capabilityTokenPrefix}${randomBytes(32).toString("base64url")}`;
      grants.set(token, { ...grant });
      return token;
    },
    lookup: (token) => grants.get(token),
    revoke(token) {
      grants.delete(token);
    },
    revokeAll() {
      grants.clear();
    },
    size: () => grants.size,
    entries: () => [...grants.entries()].map(([token, grant]) => [token, { ...grant }]),
  };
}
