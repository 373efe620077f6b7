/** The session cookie's name; it carries the port because browsers share cookies across ports. */
export function sessionCookieName(port: number): string {
  return `downcity_console_${port}`;
}

/** A `Set-Cookie` value for a session (HttpOnly, SameSite=Strict, whole site), or one that clears it. */
export function sessionCookie(port: number, sessionId: string | undefined): string {
  const base = `${sessionCookieName(port)}=${sessionId ?? ""}; HttpOnly; SameSite=Strict; Path=/`;
  return sessionId ? base : `${base}; Max-Age=0`;
}

/** Reads one cookie from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? "").split(";")) {
    const [key, ...rest] = pair.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}
