import { z } from "zod";

/** The contents of `.downcity/debug/daemon.json`. */
export const daemonMetaSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  startedAt: z.string(),
  version: z.string(),
  /** Kernel start time of the pid, so a recycled pid is never mistaken for the daemon. */
  pidStartTime: z.string().nullable().optional(),
  /** Each plug-in's state at start-up (`downcity status --json` shows it). */
  plugins: z
    .array(
      z.object({
        name: z.string(),
        source: z.string(),
        version: z.string().optional(),
        state: z.enum(["loaded", "disabled", "failed"]),
        error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).optional(),
      }),
    )
    .optional(),
});

/** What a running daemon records about itself. */
export type DaemonMeta = z.infer<typeof daemonMetaSchema>;
