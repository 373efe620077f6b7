import { randomBytes } from "node:crypto";

/** Options of `createConsoleAuth`. */
export interface ConsoleAuthOptions {
  /** How long a login code may be exchanged [60 s]. */
  codeTtlMs?: number;
  /** How long a session lasts without use [12 h]. */
  sessionIdleMs?: number;
  now?: () => number;
}

/** One-time login codes and the browser sessions they are exchanged for; all state lives in this object. */
export interface ConsoleAuth {
  /** Issues a single-use code valid for the code lifetime. */
  issueCode(): { code: string; expiresAt: string };
  /** Exchanges a code for a new session id; undefined when the code is unknown, used or expired. */
  exchange(code: string): string | undefined;
  /** True while the session exists and was used within the idle lifetime (each check extends it). */
  verify(sessionId: string | undefined): boolean;
  /** Ends a session. */
  end(sessionId: string | undefined): void;
}

const secret = () => randomBytes(32).toString("base64url");

/** Creates the console's login state: codes from `downcity console open`, sessions behind the cookie. */
export function createConsoleAuth(options: ConsoleAuthOptions = {}): ConsoleAuth {
  const now = options.now ?? Date.now;
  const codeTtlMs = options.codeTtlMs ?? 60_000;
  const sessionIdleMs = options.sessionIdleMs ?? 12 * 3_600_000;
  const codes = new Map<string, number>();
  const sessions = new Map<string, number>();
  const sweep = () => {
    const time = now();
    for (const [code, expires] of codes) if (expires <= time) codes.delete(code);
    for (const [id, expires] of sessions) if (expires <= time) sessions.delete(id);
  };
  return {
    issueCode() {
      sweep();
      const code = secret();
      const expires = now() + codeTtlMs;
      codes.set(code, expires);
      return { code, expiresAt: new Date(expires).toISOString() };
    },
    exchange(code) {
      const expires = codes.get(code);
      // Deleted before the check: a code is spent by its first use, even an expired one.
      codes.delete(code);
      if (expires === undefined || expires <= now()) return undefined;
      const sessionId = secret();
      sessions.set(sessionId, now() + sessionIdleMs);
      return sessionId;
    },
    verify(sessionId) {
      if (!sessionId) return false;
      const expires = sessions.get(sessionId);
      if (expires === undefined || expires <= now()) {
        sessions.delete(sessionId);
        return false;
      }
      sessions.set(sessionId, now() + sessionIdleMs);
      return true;
    },
    end(sessionId) {
      if (sessionId) sessions.delete(sessionId);
    },
  };
}
