import { errorFromZod, splitFrontMatter } from "@downcity/core";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { parseAllowedTools } from "./parse-allowed-tools.js";

/** The front matter keys Downcity interprets; every other key is preserved untouched. */
export const skillFrontMatterSchema = z.looseObject({
  name: z
    .string({ error: "is required: add `name: <skill-id>` to the front matter" })
    .trim()
    .min(1, "must not be empty")
    .max(128, "must be at most 128 characters")
    .regex(/^[^\n\r/\\]+$/, "must be one line without slashes"),
  description: z
    .string({ error: "is required: add `description: <when to use this skill>` to the front matter" })
    .trim()
    .min(1, "must not be empty"),
  "allowed-tools": z
    .union([z.string(), z.array(z.string({ error: "entries must be strings" }))], {
      error: "must be a YAML list or a comma- or space-separated string",
    })
    .optional(),
});

/** A parsed `SKILL.md`: the interpreted fields, every front matter key, and the Markdown body. */
export interface ParsedSkillFile {
  name: string;
  description: string;
  allowedTools?: string[];
  frontMatter: Record<string, unknown>;
  body: string;
}

/** The outcome of parsing: the skill, or the reason it cannot be used. */
export type ParseSkillFileResult = { ok: true; skill: ParsedSkillFile } | { ok: false; reason: string };

/** Parses the text of a `SKILL.md` (YAML front matter between `---` lines, then Markdown). */
export function parseSkillFile(text: string): ParseSkillFileResult {
  const split = splitFrontMatter(text);
  if (!split) {
    return {
      ok: false,
      reason:
        "no YAML front matter: the file must start with a `---` line, then `name:` and `description:`, then `---`",
    };
  }
  let data: unknown;
  try {
    data = parseYaml(split.frontMatter);
  } catch (error) {
    return { ok: false, reason: `malformed YAML front matter: ${(error as Error).message.split("\n")[0]}` };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { ok: false, reason: "the front matter must be a YAML mapping with `name` and `description`" };
  }
  const parsed = skillFrontMatterSchema.safeParse(data);
  if (!parsed.success)
    return { ok: false, reason: errorFromZod(parsed.error, { what: "front matter" }).message };
  const { name, description } = parsed.data;
  const declared = parsed.data["allowed-tools"];
  return {
    ok: true,
    skill: {
      name,
      description,
      ...(declared === undefined ? {} : { allowedTools: parseAllowedTools(declared) }),
      frontMatter: data as Record<string, unknown>,
      body: split.body.replace(/^\s*\n/, ""),
    },
  };
}
