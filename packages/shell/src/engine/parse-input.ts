import type { z } from "zod";
import { ShellError } from "../shell-error.js";

/** Validates a method's input against its zod schema, as INVALID_INPUT naming the field and the fix. */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  method: string,
): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "input"}: ${issue.message}`)
    .join("; ");
  throw new ShellError(
    "INVALID_INPUT",
    `${method}: invalid input (${problems}); fix these fields and call again`,
  );
}
