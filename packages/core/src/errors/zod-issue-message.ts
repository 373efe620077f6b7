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

/**
 * The message of one zod issue. A rejected record key names its rule (pattern, length or allowed
 * values), since zod's own "Invalid key in record" leaves the user guessing what is allowed.
 */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== "invalid_key") return issue.message;
  const key = issue.path[issue.path.length - 1];
  const rules = issue.issues.map(keyRule);
  const subject = key === undefined ? "key" : `key ${JSON.stringify(String(key))}`;
  return `${subject} is not allowed: ${rules.length > 0 ? rules.join("; ") : issue.message}`;
}

function keyRule(issue: z.core.$ZodIssue): string {
  const custom = (fallback: string) =>
    issue.message.startsWith("Invalid") || issue.message.startsWith("Too") ? fallback : issue.message;
  if (issue.code === "invalid_format" && issue.format === "regex" && "pattern" in issue) {
    const pattern = String(issue.pattern);
    const rule = custom("");
    return rule ? `${rule} (pattern ${pattern})` : `must match the pattern ${pattern}`;
  }
  if (issue.code === "too_big" && issue.origin === "string")
    return custom(`must be at most ${issue.maximum} characters`);
  if (issue.code === "too_small" && issue.origin === "string")
    return custom(`must be at least ${issue.minimum} characters`);
  if (issue.code === "invalid_value")
    return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
  return issue.message;
}

/** Turns a zod failure into an INVALID_INPUT-style error whose message names every bad field. */
export function errorFromZod(
  error: z.ZodError,
  options: { what: string; code?: "INVALID_INPUT" | "CONFIG_INVALID"; prefix?: string },
): DowncityError {
  const first = error.issues[0];
  const lines = error.issues.map((issue) => `${issuePath(issue, options.prefix)}: ${issueMessage(issue)}`);
  return new DowncityError(
    options.code ?? "INVALID_INPUT",
    `Invalid ${options.what}: ${lines.join("; ")}`,
    first ? { field: issuePath(first, options.prefix), cause: error } : { cause: error },
  );
}
