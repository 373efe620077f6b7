import { JSONParseError } from "ai";

/** A parse that failed names the text and why, as the AI SDK's parse does. */
export type ParsedJson = { success: true; value: unknown } | { success: false; error: JSONParseError };

/**
 * A model's tool input parsed as JSON, refusing an object that carries `__proto__` or a
 * `constructor.prototype` (prototype poisoning once the input is merged into another object), as
 * the AI SDK's parse refuses it.
 */
export function parseToolJson(text: string): ParsedJson {
  try {
    const value: unknown = JSON.parse(text, (key, entry: unknown) => {
      const poisoned =
        key === "__proto__" ||
        (key === "constructor" &&
          entry !== null &&
          typeof entry === "object" &&
          Object.hasOwn(entry, "prototype"));
      if (poisoned) throw new SyntaxError("Object contains forbidden prototype property");
      return entry;
    });
    return { success: true, value };
  } catch (cause) {
    return { success: false, error: new JSONParseError({ text, cause }) };
  }
}

/** An error as the model reads it: its message, a string as is, anything else as JSON. */
export function errorMessageOf(error: unknown): string {
  if (error == null) return "unknown error";
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  return JSON.stringify(error);
}

/**
 * Runs a tool's `execute`. A tool that yields (an async iterable) reports every value as it comes
 * and ends with the last one; any other returns its (awaited) result.
 */
export async function* toolOutputs(
  result: unknown,
): AsyncGenerator<{ type: "preliminary" | "final"; output: unknown }> {
  if (result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const output of result as AsyncIterable<unknown>) {
      last = output;
      yield { type: "preliminary", output };
    }
    yield { type: "final", output: last };
  } else yield { type: "final", output: await result };
}
