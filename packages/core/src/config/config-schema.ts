import { z } from "zod";

const mcpCommon = { enabled: z.boolean().default(true).describe("Set false to skip this server") };

/** One MCP server of `mcp.servers`: stdio child process, SSE, or Streamable HTTP (`http`). */
export const mcpServerConfigSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    ...mcpCommon,
  }),
  z.strictObject({
    type: z.literal("sse"),
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    ...mcpCommon,
  }),
  z.strictObject({
    type: z.literal("http"),
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    ...mcpCommon,
  }),
]);

/** The model a project's agent talks to. */
export const llmConfigSchema = z.strictObject({
  provider: z.enum(["openai", "anthropic", "openai-compatible"]),
  model: z.string().min(1).describe("Model id, e.g. gpt-4.1-mini or claude-sonnet-4-5"),
  baseURL: z.url().optional().describe("Required for openai-compatible; optional override otherwise"),
  apiKey: z.string().optional().describe('API key, usually "${OPENAI_API_KEY}"-style'),
  structuredOutputs: z
    .boolean()
    .default(true)
    .describe("openai-compatible only: send JSON schemas for structured output"),
});

/** The zod schema of `downcity.json`; its JSON Schema is generated from it, never written by hand. */
export const downcityConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().optional().describe("Display name of this agent"),
  llm: llmConfigSchema.optional(),
  start: z
    .strictObject({
      host: z.string().default("127.0.0.1"),
      port: z.number().int().min(0).max(65535).default(0).describe("0 picks a free port"),
    })
    .optional(),
  services: z
    .strictObject({
      chat: z
        .strictObject({
          queue: z.strictObject({ maxConcurrency: z.number().int().min(1).max(256).default(4) }).optional(),
        })
        .optional(),
    })
    .optional(),
  context: z
    .strictObject({
      history: z
        .strictObject({
          keepLast: z.number().int().min(2).default(200).describe("Messages sent to the model verbatim"),
          maxInputTokens: z.number().int().min(1000).default(120000),
        })
        .optional(),
      maxSteps: z.number().int().min(1).max(200).default(30).optional(),
    })
    .optional(),
  memory: z
    .strictObject({
      enabled: z.boolean().default(true),
      threshold: z.number().int().min(1).default(40),
      maxPrimaryChars: z.number().int().min(1000).default(15000),
      promptBudgetChars: z.number().int().min(500).default(6000),
    })
    .optional(),
  skills: z
    .strictObject({
      roots: z
        .array(z.string())
        .default([])
        .describe("Extra skill roots, relative to the project or absolute"),
    })
    .optional(),
  mcp: z
    .strictObject({
      servers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), mcpServerConfigSchema).default({}),
      timeoutMs: z.number().int().min(100).default(15000).optional(),
    })
    .optional(),
  tasks: z.strictObject({ enabled: z.boolean().default(true) }).optional(),
  shell: z
    .strictObject({
      maxSessions: z.number().int().min(1).max(1024).optional(),
      secretEnv: z
        .array(z.string())
        .optional()
        .describe("Environment variables never passed to shell commands"),
    })
    .optional(),
});

/** A validated `downcity.json`. */
export type DowncityConfig = z.output<typeof downcityConfigSchema>;
/** One validated MCP server entry. */
export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;
/** The validated `llm` section. */
export type LlmConfig = z.output<typeof llmConfigSchema>;

/** The JSON Schema of `downcity.json`, generated from the zod schema. */
export function downcityConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(downcityConfigSchema, { io: "input", target: "draft-2020-12" }),
    title: "downcity.json",
  };
}
