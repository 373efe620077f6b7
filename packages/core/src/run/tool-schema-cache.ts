import { type FlexibleSchema, type ToolSet, zodSchema } from "ai";
import type { z } from "zod";

/** Reuses one AI SDK schema per zod schema, so the JSON Schema of a tool is generated once, not every run. */
export function createToolSchemaCache(): (tools: ToolSet) => ToolSet {
  const cache = new WeakMap<object, FlexibleSchema<unknown>>();
  return (tools) => {
    const out: ToolSet = {};
    for (const [name, entry] of Object.entries(tools)) {
      const schema = entry.inputSchema as unknown;
      const isZod =
        typeof schema === "object" &&
        schema !== null &&
        "~standard" in schema &&
        (schema as { "~standard": { vendor?: string } })["~standard"].vendor === "zod";
      if (!isZod) {
        out[name] = entry;
        continue;
      }
      let cached = cache.get(schema as object);
      if (!cached) {
        cached = zodSchema(schema as z.ZodType) as FlexibleSchema<unknown>;
        cache.set(schema as object, cached);
      }
      out[name] = { ...entry, inputSchema: cached } as ToolSet[string];
    }
    return out;
  };
}
