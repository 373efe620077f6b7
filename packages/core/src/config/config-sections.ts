import { z } from "zod";
import { DowncityError } from "../errors/downcity-error.js";
import { ConfigProblemsError, configProblemsFromZod } from "./config-problems.js";
import { coreConfigShape, type DowncityConfig } from "./config-schema.js";
import { nearestKey } from "./nearest-key.js";

/** A top-level `downcity.json` section owned by a plug-in or the host, with its zod schema. */
export interface ConfigSection {
  readonly name: string;
  readonly config?: z.ZodObject;
}

const enabledField = z.boolean().default(true).describe("Set false to turn this plug-in off");

/** The full `downcity.json` schema: core's sections plus each section, each accepting `enabled`. */
export function composeConfigSchema(sections: readonly ConfigSection[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...coreConfigShape };
  for (const section of sections) {
    if (section.name in coreConfigShape) continue;
    const schema = (section.config ?? z.strictObject({})).extend({ enabled: enabledField });
    shape[section.name] = schema.optional();
  }
  return z.strictObject(shape);
}

/** The JSON Schema of `downcity.json` for the given sections (editor completion for every one of them). */
export function downcityConfigJsonSchema(sections: readonly ConfigSection[] = []): Record<string, unknown> {
  return {
    ...z.toJSONSchema(composeConfigSchema(sections), {
      io: "input",
      target: "draft-2020-12",
      unrepresentable: "any",
    }),
    title: "downcity.json",
  };
}

/** Top-level keys of `config` that neither core nor any of `claimed` owns. */
export function unclaimedConfigSections(config: DowncityConfig, claimed: readonly string[]): string[] {
  const owned = new Set([...Object.keys(coreConfigShape), ...claimed]);
  return Object.keys(config).filter((key) => !owned.has(key));
}

/**
 * The error for sections nobody claims: names each one, the nearest valid section name (`chanels` →
 * `channels`) among core's, `installed` and `known` (the host's), and lists who could have claimed it.
 */
export function unclaimedSectionsError(
  unclaimed: readonly string[],
  installed: readonly string[],
  known: readonly string[] = [],
): DowncityError {
  const valid = [...Object.keys(coreConfigShape).filter((key) => key !== "$schema"), ...known, ...installed];
  const suggestions = unclaimed.flatMap((name) => {
    const near = nearestKey(name, valid);
    return near ? [`did you mean "${near}" for "${name}"?`] : [];
  });
  const names = unclaimed.map((name) => `"${name}"`).join(", ");
  return new DowncityError(
    "CONFIG_INVALID",
    `downcity.json has ${unclaimed.length === 1 ? "a section" : "sections"} ${names} that no installed plug-in claims` +
      `${suggestions.length > 0 ? ` (${suggestions.join("; ")})` : ""}. ` +
      `Installed plug-ins: ${installed.join(", ") || "none"}. Remove the section, fix its name, or add the plug-in to "plugins".`,
    { field: unclaimed[0] ?? "(root)" },
  );
}

/** A section's validated value and whether it is enabled (`"enabled": false` turns a plug-in off). */
export interface SectionValue<T = unknown> {
  enabled: boolean;
  value: T;
}

/** Validates `section` of `config` with its schema; an absent section parses as `{}`. */
export function readConfigSection<Schema extends z.ZodObject>(
  config: DowncityConfig,
  section: { name: string; config?: Schema },
): SectionValue<z.output<Schema>> {
  const raw = (config as Record<string, unknown>)[section.name] ?? {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `downcity.json field "${section.name}" must be an object (the settings of the ${section.name} plug-in).`,
      { field: section.name },
    );
  }
  const { enabled, ...rest } = raw as Record<string, unknown>;
  if (enabled !== undefined && typeof enabled !== "boolean") {
    throw new DowncityError(
      "CONFIG_INVALID",
      `downcity.json field "${section.name}.enabled" must be true or false.`,
      {
        field: `${section.name}.enabled`,
      },
    );
  }
  const schema = section.config ?? z.strictObject({});
  const parsed = schema.safeParse(rest);
  if (!parsed.success) {
    const problems = configProblemsFromZod(parsed.error, {
      schema,
      prefix: section.name,
      extraKeys: ["enabled"],
    });
    throw new ConfigProblemsError("downcity.json", problems, { cause: parsed.error });
  }
  return { enabled: enabled !== false, value: parsed.data as z.output<Schema> };
}
