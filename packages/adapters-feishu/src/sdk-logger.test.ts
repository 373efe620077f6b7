import { describe, expect, it } from "vitest";
import { createSdkLogger, redactSecrets } from "./sdk-logger.js";

describe("the SDK logger bridge", () => {
  it("redacts the app secret, tenant tokens, bearer headers and connection tickets", () => {
    expect(
      redactSecrets(
        "secret s3cr3t-value, t-g1044abcdefgh, Bearer abc.def, wss://x/ws?ticket=T123&device_id=d",
        ["s3cr3t-value"],
      ),
    ).toBe("secret ***, ***, ***, wss://x/ws?***&device_id=d");
  });

  it("forwards warnings and errors only, redacted, and drops the SDK's payload-carrying info and debug lines", () => {
    const lines: Array<{ level: string; message: string | undefined }> = [];
    const record = (level: string) => (_fields: Record<string, unknown>, message?: string) =>
      void lines.push({ level, message });
    const logger = createSdkLogger(
      { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
      "lark",
      ["s3cr3t-value"],
    );
    logger.info("receive message", { text: "private words" });
    logger.debug("ws url", "wss://x?ticket=abc");
    logger.warn("[ws]", new Error("failed with s3cr3t-value"));
    logger.error("[ws]", { app_secret: "s3cr3t-value" });
    logger.error([new Error("token t-abcdefgh1234 refused")]);
    expect(lines).toEqual([
      { level: "warn", message: "[ws] failed with ***" },
      { level: "error", message: '[ws] {"app_secret":"***"}' },
      { level: "error", message: '["token *** refused"]' },
    ]);
  });
});
