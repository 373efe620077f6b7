import type { Logger } from "@downcity/core";
import { freePort } from "@downcity/testkit";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { startOtlpReceiver } from "../../test/otlp-receiver.js";
import { outageLoggingExporter } from "./outage-logging-exporter.js";

/** A few finished spans to export. */
function someSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "outage-test" }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  provider.getTracer("test").startSpan("one").end();
  return memory.getFinishedSpans();
}

describe("outageLoggingExporter", () => {
  it("logs an outage once when it starts and once when it ends, over a real OTLP exporter", async () => {
    const lines: Array<{ level: string; message?: string; fields: Record<string, unknown> }> = [];
    const logger: Logger = {
      debug: () => {},
      info: (fields, message) => lines.push({ level: "info", message, fields }),
      warn: (fields, message) => lines.push({ level: "warn", message, fields }),
      error: (fields, message) => lines.push({ level: "error", message, fields }),
    };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1/traces`;
    const exporter = outageLoggingExporter(
      new OTLPTraceExporter({ url, headers: { authorization: "Bearer hidden-4711" }, timeoutMillis: 1000 }),
      logger,
      url,
    );
    const exportOnce = () =>
      new Promise<number>((resolve) => exporter.export(someSpans(), (r) => resolve(r.code)));

    // Nobody listens: three failed exports, one warning.
    expect([await exportOnce(), await exportOnce(), await exportOnce()]).toEqual([1, 1, 1]);
    expect(lines.map((line) => line.level)).toEqual(["warn"]);
    const receiver = await startOtlpReceiver(port);
    try {
      expect(await exportOnce()).toBe(0);
      expect(await exportOnce()).toBe(0);
      expect(lines.map((line) => line.level)).toEqual(["warn", "info"]);
      expect(receiver.spans.map((span) => span.name)).toEqual(["one", "one"]);
    } finally {
      await receiver.close();
    }
    // The next outage is logged again.
    expect(await exportOnce()).toBe(1);
    expect(lines.map((line) => line.level)).toEqual(["warn", "info", "warn"]);
    expect(JSON.stringify(lines)).not.toContain("hidden-4711");
    await exporter.shutdown();
  });
});
