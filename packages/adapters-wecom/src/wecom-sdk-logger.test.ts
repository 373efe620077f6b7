import { describe, expect, it } from "vitest";
import { sdkLogger } from "./wecom-sdk-logger.js";

describe("sdkLogger", () => {
  it("masks the secret, drops the SDK's debug lines (message bodies) and keeps warnings", () => {
    const lines: Array<{ level: string; message?: string }> = [];
    const record = (level: string) => (_fields: unknown, message?: string) => lines.push({ level, message });
    const logger = sdkLogger(
      { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
      "wecom",
      ["s3cret-value-0123456789"],
    );
    logger.debug("[server -> plugin] body=", { text: { content: "private words" } });
    logger.info("Connecting with s3cret-value-0123456789");
    logger.warn("Auth failed:", new Error("bad secret s3cret-value-0123456789"));
    logger.error("Failed:", { errcode: 40001 });
    logger.warn("Client not connected");
    expect(lines).toEqual([
      { level: "debug", message: "Connecting with ***" },
      { level: "warn", message: "Auth failed: bad secret ***" },
      { level: "warn", message: 'Failed: {"errcode":40001}' },
    ]);
  });
});
