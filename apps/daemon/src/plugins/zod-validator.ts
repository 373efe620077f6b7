import { DowncityError, errorFromZod } from "@downcity/core";
import type { FastifySchemaCompiler } from "fastify";
import type { z } from "zod";

// Unknown keys get their own message naming the key, so "400 naming the field" holds for them too.
function describe(error: z.ZodError, what: string) {
  const unknown = error.issues.find((issue) => issue.code === "unrecognized_keys");
  if (unknown && "keys" in unknown && Array.isArray(unknown.keys) && unknown.keys.length > 0) {
    const keys = unknown.keys.map(String);
    const prefix = unknown.path.length > 0 ? `${unknown.path.join(".")}.` : "";
    return new DowncityError(
      "INVALID_INPUT",
      `Invalid ${what}: unknown field${keys.length > 1 ? "s" : ""} ${keys.map((key) => `"${prefix}${key}"`).join(", ")}; remove ${keys.length > 1 ? "them" : "it"}`,
      { field: `${prefix}${keys[0]}`, cause: error },
    );
  }
  const first = error.issues[0];
  if (first && first.path.length === 0) {
    // The whole body (or query) has the wrong shape: name the part, not "(root)".
    return new DowncityError("INVALID_INPUT", `Invalid ${what}: ${first.message}; send a JSON object`, {
      field: what,
      cause: error,
    });
  }
  return errorFromZod(error, { what });
}

/** Validates each route part with its zod schema and throws core's INVALID_INPUT error naming the field. */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const what = httpPart === "querystring" ? "query" : (httpPart ?? "input");
  return (data: unknown) => {
    const result = schema.safeParse(data ?? (httpPart === "body" ? undefined : {}));
    if (result.success) return { value: result.data };
    return { error: describe(result.error, what) };
  };
};
