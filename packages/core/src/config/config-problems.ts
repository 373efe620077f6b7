import type { z } from "zod";
import { DowncityError } from "../errors/downcity-error.js";
import { issueMessage, issuePath } from "../errors/zod-issue-message.js";
import { nearestKey } from "./nearest-key.js";

/** One thing wrong with a configuration: the field to blame (dotted path) and what is wrong with it. */
export interface ConfigProblem {
  field: string;
  message: string;
}

type SchemaDef = {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  valueType?: unknown;
  element?: unknown;
};

function defOf(schema: unknown): SchemaDef | undefined {
  return (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
}

/** The keys an object schema accepts at `path` (through optional, default, pipe, record and array). */
export function schemaKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  let remaining = [...path];
  for (let guard = 0; guard < 64 && current !== undefined; guard++) {
    const def = defOf(current);
    if (!def) return [];
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === "pipe") current = def.in;
    else if (def.type === "object" && def.shape) {
      if (remaining.length === 0) return Object.keys(def.shape);
      current = def.shape[String(remaining[0])];
      remaining = remaining.slice(1);
    } else if (def.type === "record" || def.type === "array") {
      if (remaining.length === 0) return [];
      current = def.type === "record" ? def.valueType : def.element;
      remaining = remaining.slice(1);
    } else return [];
  }
  return [];
}

/**
 * Every problem of a zod failure, one per field; an unknown key names the nearest valid one
 * (`chanels` → `channels`) when `schema` is given.
 */
export function configProblemsFromZod(
  error: z.ZodError,
  options: { schema?: unknown; prefix?: string; extraKeys?: readonly string[] } = {},
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const valid = [...schemaKeysAt(options.schema, issue.path), ...(options.extraKeys ?? [])];
      for (const key of issue.keys) {
        const near = nearestKey(key, valid);
        problems.push({
          field: issuePath({ ...issue, path: [...issue.path, key] }, options.prefix),
          message: `unknown key "${key}"${near ? `; did you mean "${near}"?` : valid.length > 0 ? ` (allowed: ${valid.join(", ")})` : ""}`,
        });
      }
      continue;
    }
    problems.push({ field: issuePath(issue, options.prefix), message: issueMessage(issue) });
  }
  return problems;
}

/** A CONFIG_INVALID error that keeps each problem, so a validator can list them all in one pass. */
export class ConfigProblemsError extends DowncityError {
  readonly problems: readonly ConfigProblem[];
  constructor(what: string, problems: readonly ConfigProblem[], options: { cause?: unknown } = {}) {
    const lines = problems.map((problem) => `  ${problem.field}: ${problem.message}`);
    const heading =
      problems.length === 1 ? `${what} has a problem:` : `${what} has ${problems.length} problems:`;
    super("CONFIG_INVALID", `${heading}\n${lines.join("\n")}`, {
      field: problems[0]?.field ?? "(root)",
      ...options,
    });
    this.problems = problems;
  }
}

/** The problems an error carries: each of a ConfigProblemsError, else the error itself as one. */
export function problemsOf(error: unknown, field = "(root)"): ConfigProblem[] {
  if (error instanceof ConfigProblemsError) return [...error.problems];
  const named = (error as { field?: unknown }).field;
  return [
    {
      field: typeof named === "string" ? named : field,
      message: error instanceof Error ? error.message : String(error),
    },
  ];
}
