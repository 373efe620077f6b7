import { errorFromZod } from "@downcity/core";
import { z } from "zod";

/** The flags of `downcity store import`, as commander hands them over. */
export const storeImportOptionsSchema = z.strictObject({
  dir: z.string().min(1).optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});

/** Checks the flags of `downcity store import`; a bad one is an error naming it. */
export function parseStoreImportOptions(options: unknown): z.output<typeof storeImportOptionsSchema> {
  const parsed = storeImportOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw errorFromZod(parsed.error, { what: "downcity store import", code: "INVALID_INPUT" });
  return parsed.data;
}
