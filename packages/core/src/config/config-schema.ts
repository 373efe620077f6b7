import { z } from "zod";
import { retainDaysSchema } from "./retain-days.js";

/** The model a project's agent talks to. */
export const llmConfigSchema = z
  .strictObject({
    provider: z.enum(["openai", "anthropic", "openai-compatible"]),
    model: z.string().min(1).describe("Model id, e.g. gpt-4.1-mini or claude-sonnet-4-5"),
    baseURL: z.url().optional().describe("Required for openai-compatible; optional override otherwise"),
    apiKey: z.string().optional().describe('API key, usually "${OPENAI_API_KEY}"-style'),
    structuredOutputs: z
      .boolean()
      .default(true)
      .describe("openai-compatible only: send JSON schemas for structured output"),
    vision: z
      .boolean()
      .default(true)
      .describe(
        "The model takes images: photos people send reach it as images (false: a note with the file path)",
      ),
    transcription: z
      .string()
      .min(1, "names a transcription model of the provider, e.g. whisper-1")
      .optional()
      .describe(
        "Transcription model on the same provider (e.g. whisper-1, gpt-4o-mini-transcribe; any model an OpenAI-compatible server serves at /audio/transcriptions): voice notes and audio files are transcribed before the turn (absent: a note with the file path and duration)",
      ),
  })
  .superRefine((llm, context) => {
    if (llm.transcription !== undefined && llm.provider === "anthropic")
      context.addIssue({
        code: "custom",
        path: ["transcription"],
        message:
          'Anthropic has no transcription API: remove "llm.transcription", or use "provider": "openai" or "openai-compatible" (a server with /audio/transcriptions)',
      });
  });

/** The sections core owns; every other top-level key of `downcity.json` belongs to a plug-in or the host. */
export const coreConfigShape = {
  $schema: z.string().optional(),
  name: z.string().optional().describe("Display name of this agent"),
  llm: llmConfigSchema.optional(),
  history: z
    .strictObject({
      keepLast: z.number().int().min(2).default(200).describe("Messages sent to the model verbatim"),
      maxInputTokens: z.number().int().min(1000).default(120000),
    })
    .optional()
    .describe("How much of a conversation the model sees"),
  media: z
    .strictObject({
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .max(2 * 1024 * 1024 * 1024)
        .default(20 * 1024 * 1024)
        .describe("Largest file kept from a chat, in bytes; a larger one gets a visible reply"),
    })
    .optional()
    .describe("Files people send, kept under .downcity/media/<context>/"),
  lanes: z
    .strictObject({
      maxConcurrency: z
        .number()
        .int()
        .min(1)
        .max(256)
        .default(4)
        .describe("Conversations that run at the same time"),
    })
    .optional(),
  run: z
    .strictObject({
      maxSteps: z.number().int().min(1).max(200).default(30).describe("Model steps per run"),
      stepTimeoutMs: z
        .number()
        .int()
        .min(0)
        .max(604800000)
        .default(600000)
        .describe("Longest one step (a model call and its tools) may take, in ms; 0 = no limit"),
      runTimeoutMs: z
        .number()
        .int()
        .min(0)
        .max(604800000)
        .default(3600000)
        .describe("Longest a whole run may take, in ms; 0 = no limit"),
      idleTimeoutMs: z
        .number()
        .int()
        .min(0)
        .max(604800000)
        .default(120000)
        .describe("A model stream silent this long (while no tool runs) is aborted, in ms; 0 = no limit"),
      retry: z
        .strictObject({
          maxMs: z
            .number()
            .int()
            .min(0)
            .max(86400000)
            .default(600000)
            .describe(
              "How long a failing model call (429, 5xx, timeout, no connection) is retried, in ms; 0 = not retried",
            ),
        })
        .optional()
        .describe("Retries of transient model failures; a refused key or unknown model is not retried"),
    })
    .optional()
    .describe("Bounds of one agent run"),
  runs: z
    .strictObject({
      retainDays: retainDaysSchema(
        30,
        "Days a run's journal (.downcity/runs/ or the store's tables) is kept",
      ),
    })
    .optional()
    .describe("The run journal"),
  plugins: z
    .array(z.string().min(1))
    .default([])
    .describe('Extra plug-ins: package names ("@acme/downcity-jira") or local files ("./plugins/x.mjs")'),
  channels: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/),
      z.looseObject({ adapter: z.string().min(1).describe("Adapter package name or ./file") }),
    )
    .default({})
    .describe("Chat channel instances; the key is the channel part of context ids"),
  store: z
    // Other keys are the adapter's own options (e.g. poolSize); the adapter validates them.
    .looseObject({
      adapter: z
        .string()
        .min(1)
        .describe('Store package shared by several workers, e.g. "@downcity/store-postgres"'),
      url: z.string().min(1).optional().describe('Connection URL, usually "${DATABASE_URL}"'),
      leaseMs: z
        .number()
        .int()
        .min(1000)
        .max(600000)
        .default(15000)
        .describe("How long a worker owns a context without renewing it, in ms"),
    })
    .optional()
    .describe("Where history, inbox and outbox live; absent = files under .downcity/ (one worker)"),
} as const;

/**
 * The zod schema of what core reads from `downcity.json`. Other sections pass through untouched:
 * their owners (plug-ins, the host) validate them, and `unclaimedConfigSections` reports the rest.
 */
export const downcityConfigSchema = z.looseObject(coreConfigShape);

/** A validated `downcity.json` as core sees it (plug-in sections still raw). */
export type DowncityConfig = z.output<typeof downcityConfigSchema>;
/** The validated `llm` section. */
export type LlmConfig = z.output<typeof llmConfigSchema>;
