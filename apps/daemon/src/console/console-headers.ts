import type { ServerResponse } from "node:http";

/** The page's Content-Security-Policy: only this server's own scripts, styles and connections; no inline script. */
export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Pico draws its form icons as data: SVG backgrounds.
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Sets the security headers every console response carries. */
export function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader("content-security-policy", consoleContentSecurityPolicy);
  response.setHeader("x-content-type-options", "nosniff");
  response.setHeader("referrer-policy", "no-referrer");
  response.setHeader("x-frame-options", "DENY");
  response.setHeader("cross-origin-opener-policy", "same-origin");
  response.setHeader("cross-origin-resource-policy", "same-origin");
}
