import type { ConfigSection } from "@downcity/core";
import { z } from "zod";

/** `telemetry`: optional OpenTelemetry export of runs, model calls, tool calls and deliveries. */
export const telemetrySection = {
  name: "telemetry",
  config: z.strictObject({
    otlp: z
      .strictObject({
        url: z
          .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
          .describe("OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces"),
        headers: z
          .record(z.string().min(1), z.string())
          .default({})
          .describe('Headers sent with every export (values may use "${VAR}"; never logged)'),
        content: z
          .boolean()
          .default(false)
          .describe(
            "Put message content (model output, tool inputs and outputs) on spans, redacted like the run journal",
          ),
      })
      .optional()
      .describe("Export spans over OTLP/HTTP (JSON); absent: no export and no OpenTelemetry code loaded"),
  }),
} satisfies ConfigSection;

/** The `telemetry.otlp` settings, validated. */
export type OtlpSettings = NonNullable<z.output<(typeof telemetrySection)["config"]>["otlp"]>;
