import { describe, expect, it } from "vitest";
import { z } from "zod";
import { downcityConfigSchema } from "./config-schema.js";
import {
  composeConfigSchema,
  downcityConfigJsonSchema,
  readConfigSection,
  unclaimedConfigSections,
  unclaimedSectionsError,
} from "./config-sections.js";

const memory = { name: "memory", config: z.strictObject({ threshold: z.number().int().min(1).default(40) }) };

describe("config sections", () => {
  it("validates a section with its owner's schema, naming the field under the section", () => {
    const config = downcityConfigSchema.parse({ memory: { threshold: 0 } });
    expect(() => readConfigSection(config, memory)).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", field: "memory.threshold" }),
    );
    expect(readConfigSection(downcityConfigSchema.parse({}), memory)).toEqual({
      enabled: true,
      value: { threshold: 40 },
    });
    expect(readConfigSection(downcityConfigSchema.parse({ memory: { enabled: false } }), memory)).toEqual({
      enabled: false,
      value: { threshold: 40 },
    });
  });

  it("reports sections nobody claims, naming them and the installed plug-ins", () => {
    const config = downcityConfigSchema.parse({ name: "x", memory: {}, jira: {} });
    const unclaimed = unclaimedConfigSections(config, ["memory"]);
    expect(unclaimed).toEqual(["jira"]);
    const error = unclaimedSectionsError(unclaimed, ["memory", "tasks"]);
    expect(error).toMatchObject({ code: "CONFIG_INVALID", field: "jira" });
    expect(error.message).toContain('"jira"');
    expect(error.message).toContain("memory, tasks");
  });

  it("generates one JSON Schema covering core and every section, each with enabled", () => {
    const schema = downcityConfigJsonSchema([memory]) as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(["llm", "history", "lanes", "plugins", "channels", "memory"]),
    );
    expect(Object.keys(schema.properties.memory?.properties ?? {})).toEqual(["threshold", "enabled"]);
    expect(composeConfigSchema([memory]).safeParse({ jira: {} }).success).toBe(false);
  });
});
