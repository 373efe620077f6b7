import { type DowncityConfig, readConfigSection } from "@downcity/core";
import { describe, expect, it } from "vitest";
import { telemetrySection } from "./telemetry-section.js";

const read = (telemetry: unknown) =>
  readConfigSection({ telemetry } as unknown as DowncityConfig, telemetrySection).value;

describe("the telemetry section", () => {
  it("defaults to no headers and no content", () => {
    expect(read({ otlp: { url: "http://127.0.0.1:4318/v1/traces" } }).otlp).toEqual({
      url: "http://127.0.0.1:4318/v1/traces",
      headers: {},
      content: false,
    });
    expect(read({}).otlp).toBeUndefined();
  });

  it.each([
    [{ otlp: { url: "ftp://collector/v1/traces" } }, "telemetry.otlp.url"],
    [{ otlp: {} }, "telemetry.otlp.url"],
    [{ otlp: { url: "http://c/v1/traces", headers: { authorization: 7 } } }, "telemetry.otlp.headers"],
    [{ otlp: { url: "http://c/v1/traces", content: "yes" } }, "telemetry.otlp.content"],
    [{ otlp: { url: "http://c/v1/traces", header: {} } }, "header"],
  ])("refuses %j naming %s", (telemetry, field) => {
    expect(() => read(telemetry)).toThrow(field);
  });
});
