import { DowncityError } from "@downcity/core";
import { describe, expect, it } from "vitest";
import { createWebhookAdapter } from "./webhook-adapter.js";
import { webhookOptionsSchema } from "./webhook-options.js";

const valid = {
  listen: { host: "127.0.0.1", port: 8787 },
  url: "https://bridge.example.com/r",
  secret: "0123456789abcdef",
};

const rejection = (input: Record<string, unknown>): DowncityError => {
  try {
    createWebhookAdapter(input as never);
  } catch (error) {
    expect(DowncityError.isInstance(error)).toBe(true);
    return error as DowncityError;
  }
  throw new Error("expected the options to be rejected");
};

describe("webhook options", () => {
  it("applies defaults", () => {
    expect(webhookOptionsSchema.parse({ ...valid, listen: { port: 0 } })).toEqual({
      listen: { host: "127.0.0.1", port: 0 },
      url: valid.url,
      secret: valid.secret,
      maxBodyBytes: 1024 * 1024,
      sendTimeoutMs: 10_000,
    });
  });

  it("rejects bad options naming the field and the fix, never echoing the secret", () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { ...valid, secret: "short-secret" },
        "secret",
        /at least 16 characters: generate one with "openssl rand -hex 32"/,
      ],
      [{ ...valid, secret: undefined }, "secret", /must be a string/],
      [{ ...valid, url: "ftp://bridge.example.com/r" }, "url", /must be an http:\/\/ or https:\/\/ URL/],
      [{ ...valid, url: "not a url" }, "url", /must be an http:\/\/ or https:\/\/ URL/],
      [
        { ...valid, listen: undefined },
        "listen",
        /must be an object like \{ "host": "127.0.0.1", "port": 8787 \}/,
      ],
      [{ ...valid, listen: { port: 70000 } }, "listen.port", /must be from 0 to 65535/],
      [{ ...valid, listen: { port: "8787" } }, "listen.port", /must be a port number/],
      [{ ...valid, maxBodyBytes: 10 }, "maxBodyBytes", /must be at least 1024/],
      [{ ...valid, sendTimeoutMs: 1.5 }, "sendTimeoutMs", /whole number/],
    ];
    for (const [input, field, message] of cases) {
      const error = rejection(input);
      expect(error.code).toBe("CONFIG_INVALID");
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`${field.replace(".", "\\.")}: `));
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain("short-secret");
    }
  });
});
