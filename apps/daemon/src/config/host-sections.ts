import type { ConfigSection } from "@downcity/core";
import { retainDaysSchema } from "@downcity/core/internal";
import { z } from "zod";
import { approvalsSection } from "../approvals/approvals-section.js";
import { telemetrySection } from "../telemetry/telemetry-section.js";

/** `start`: where the daemon listens. */
export const startSection = {
  name: "start",
  config: z.strictObject({
    host: z.string().default("127.0.0.1"),
    port: z.number().int().min(0).max(65535).default(0).describe("0 picks a free port"),
  }),
} satisfies ConfigSection;

/** `shell`: the daemon's shell engine (wired by the daemon itself, since the shell package imports nothing of ours). */
export const shellSection = {
  name: "shell",
  config: z.strictObject({
    maxSessions: z.number().int().min(1).max(1024).optional(),
    retainDays: retainDaysSchema(
      7,
      "Days the folder of a finished shell session (.downcity/shell/<shell_id>/: output log, snapshot) is kept",
    ),
    secretEnv: z
      .array(z.string())
      .optional()
      .describe(
        "More variables treated as secrets: passed to shell commands only when env.pass names them exactly",
      ),
    env: z
      .strictObject({
        pass: z
          .array(z.string().min(1))
          .default([])
          .describe(
            "Variables passed to shell commands besides PATH, HOME, USER, LANG, LC_*, TERM, SHELL, TMPDIR, TZ: names or globs (a glob never passes a secret or a .env value; name those exactly)",
          ),
        set: z.record(z.string(), z.string()).default({}).describe("Variables set in every shell command"),
      })
      .default({ pass: [], set: {} })
      .describe("What shell commands receive of the daemon's environment (minimal by default)"),
    sandbox: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe("Run shell commands under bubblewrap (Linux; needs the bubblewrap package)"),
        network: z.boolean().default(false).describe("Let sandboxed commands use the network"),
        writable: z
          .array(z.string().min(1))
          .default(["."])
          .describe("Paths sandboxed commands may write, relative to the project root or absolute"),
      })
      .optional()
      .describe("Opt-in sandbox: read-only system, writable project, private /tmp, no network by default"),
  }),
} satisfies ConfigSection;

/** `logs`: the daemon's day logs (`.downcity/logs/<date>.jsonl`). */
export const logsSection = {
  name: "logs",
  config: z.strictObject({
    retainDays: retainDaysSchema(30, "Days a day log (.downcity/logs/<date>.jsonl) is kept"),
  }),
} satisfies ConfigSection;

/** `usage`: the record of every model call (`.downcity/usage/<date>.jsonl`, or the store's). */
export const usageSection = {
  name: "usage",
  config: z.strictObject({
    retainDays: retainDaysSchema(
      365,
      "Days a model call's usage record (.downcity/usage/<date>.jsonl, or the shared store's) is kept",
    ),
  }),
} satisfies ConfigSection;

/** The sections the daemon itself owns, besides core's and the plug-ins'. */
export const hostSections = [
  startSection,
  shellSection,
  logsSection,
  usageSection,
  approvalsSection,
  telemetrySection,
] as const;
