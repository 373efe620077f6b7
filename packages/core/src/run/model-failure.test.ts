import { APICallError, RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { DowncityError } from "../errors/downcity-error.js";
import { ModelCallFailure, readModelFailure, retryAfterMs, streamFailure } from "./model-failure.js";

const callError = (statusCode: number | undefined, headers?: Record<string, string>, cause?: unknown) =>
  new APICallError({
    message: "provider said no",
    url: "https://api.example.com/v1/chat?key=sk-secret",
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(headers ? { responseHeaders: headers } : {}),
    ...(cause ? { cause } : {}),
  });

describe("reading a failed model call", () => {
  it("takes 429, 5xx, 408 and connection errors as transient, with the provider's retry-after", () => {
    expect(readModelFailure(callError(429, { "Retry-After": "7" }))).toEqual({
      kind: "transient",
      retryAfterMs: 7000,
      reason: "the model provider is limiting requests (HTTP 429)",
    });
    expect(readModelFailure(callError(503))?.kind).toBe("transient");
    expect(readModelFailure(callError(408))?.kind).toBe("transient");
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(readModelFailure(new TypeError("fetch failed", { cause: refused }))).toEqual({
      kind: "transient",
      reason: "the model provider could not be reached",
    });
    expect(
      readModelFailure(
        new RetryError({ message: "x", reason: "maxRetriesExceeded", errors: [callError(500)] }),
      )?.kind,
    ).toBe("transient");
  });

  it("takes a refused key, an unknown model and an invalid request as permanent", () => {
    expect(readModelFailure(callError(401))).toEqual({
      kind: "permanent",
      reason: "the model provider refused the API key (HTTP 401)",
    });
    expect(readModelFailure(callError(403))?.kind).toBe("permanent");
    expect(readModelFailure(callError(404))?.reason).toContain("does not know the configured model");
    expect(readModelFailure(callError(400))?.kind).toBe("permanent");
  });

  it("is no model failure when the error did not come from the provider", () => {
    expect(readModelFailure(new Error("EACCES reading history"))).toBeUndefined();
    expect(streamFailure(new Error("EACCES reading history"))).not.toBeInstanceOf(ModelCallFailure);
    expect(streamFailure(new Error("EACCES reading history")).code).toBe("MODEL_ERROR");
  });

  it("ends a run with a ModelCallFailure whose reason names no URL and no key", () => {
    const failure = streamFailure(callError(401));
    expect(ModelCallFailure.isInstance(failure)).toBe(true);
    expect(DowncityError.isInstance(failure) && failure.code).toBe("MODEL_ERROR");
    expect((failure as ModelCallFailure).userReason).not.toMatch(/https?:|sk-/);
  });

  it("reads retry-after as seconds, milliseconds or an HTTP date", () => {
    expect(retryAfterMs({ "retry-after-ms": "250" })).toBe(250);
    expect(retryAfterMs({ "retry-after": "2" })).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
