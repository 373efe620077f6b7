import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as OTLP/HTTP JSON carries it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValue = { key: string; value: AnyValue };

const plain = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.doubleValue ??
  value.boolValue ??
  value.arrayValue?.values?.map(plain);

const flatten = (attributes: KeyValue[] | undefined) =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, plain(value)]));

/**
 * An OTLP/HTTP receiver on 127.0.0.1 that decodes the JSON encoding of ExportTraceServiceRequest
 * (what @opentelemetry/exporter-trace-otlp-http sends) and keeps every span and the headers it got.
 */
export async function startOtlpReceiver(port = 0) {
  const spans: ReceivedSpan[] = [];
  const headers: Array<Record<string, string | string[] | undefined>> = [];
  const raw: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      raw.push(body);
      headers.push(req.headers);
      const request = JSON.parse(body) as {
        resourceSpans?: Array<{
          resource?: { attributes?: KeyValue[] };
          scopeSpans?: Array<{
            spans?: Array<Omit<ReceivedSpan, "attributes" | "resource"> & { attributes?: KeyValue[] }>;
          }>;
        }>;
      };
      for (const resourceSpans of request.resourceSpans ?? []) {
        const resource = flatten(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              ...span,
              status: span.status ?? {},
              attributes: flatten(span.attributes),
              resource,
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    spans,
    headers,
    raw,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
