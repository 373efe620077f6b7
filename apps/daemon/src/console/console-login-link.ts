import { DowncityError } from "@downcity/core";
import { readToken } from "../token/ensure-token.js";
import { consoleProcess } from "./console-process.js";

/** Asks the running console for a one-time login link (single use, valid 60 s), authenticated by the user-level token. */
export async function createConsoleLoginLink(
  options: { env?: Record<string, string | undefined> } = {},
): Promise<{ url: string; expiresAt: string }> {
  const env = options.env ?? process.env;
  const { meta } = await consoleProcess(env);
  if (!meta) {
    throw new DowncityError(
      "NOT_FOUND",
      'The console is not running. Start it with "downcity console start".',
      {
        field: "console",
      },
    );
  }
  const token = await readToken(env);
  if (!token) {
    throw new DowncityError(
      "UNAUTHORIZED",
      "No user-level token found; start the console again to create one",
      {
        field: "token",
      },
    );
  }
  const response = await fetch(`http://${meta.host}:${meta.port}/console/api/login-codes`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  const body = (await response.json().catch(() => ({}))) as {
    url?: string;
    expiresAt?: string;
    error?: { message?: string };
  };
  if (!response.ok || !body.url || !body.expiresAt) {
    throw new DowncityError(
      "SERVICE_ERROR",
      `The console refused a login link: ${body.error?.message ?? `HTTP ${response.status}`}`,
    );
  }
  return { url: body.url, expiresAt: body.expiresAt };
}
