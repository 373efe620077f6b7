import type { z } from "zod";
import { DowncityError } from "./downcity-error.js";

/** Dotted path of a zod issue (`llm.model`, `servers.github.url`), or `(root)`. */
export function issuePath(issue: z.core.$ZodIssue, prefix = ""): string {
  const parts = issue.path.map((segment) => (typeof segment === "number" ? `[${segment}]` : String(segment)));
  const joined = parts.reduce(
    (path, part) => (part.startsWith("[") || !path ? path + part : `${path}.${part}`),
    "",
  );
  const full = prefix ? (joined ? `${prefix}.${joined}` : prefix) : joined;
  return full || "(root)";
}

/** Turns a zod failure into an INVALID_INPUT-style error whose message names every bad field. */
export function errorFromZod(
  error: z.ZodError,
  options: { what: string; code?: "INVALID_INPUT" | "CONFIG_INVALID"; prefix?: string },
): DowncityError {
  const first = error.issues[0];
  const lines = error.issues.map((issue) => `${issuePath(issue, options.prefix)}: ${issue.message}`);
  return new DowncityError(
    options.code ?? "INVALID_INPUT",
    `Invalid ${options.what}: ${lines.join("; ")}`,
    first ? { field: issuePath(first, options.prefix), cause: error } : { cause: error },
  );
}
