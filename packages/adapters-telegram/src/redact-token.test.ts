import { describe, expect, it } from "vitest";
import { redactToken } from "./redact-token.js";

describe("redactToken", () => {
  const token = "123456:AAH-secret_part_0123456789";
  it("redacts Bot API URLs and bare tokens", () => {
    const text = `request to http://127.0.0.1:9/bot${token}/getUpdates failed; token ${token}; half AAH-secret_part_0123456789`;
    const redacted = redactToken(text, token);
    expect(redacted).toBe("request to http://127.0.0.1:9/bot***/getUpdates failed; token ***; half ***");
    expect(redacted).not.toContain("secret_part");
  });
  it("redacts URLs even without knowing the token", () => {
    expect(redactToken("GET https://api.telegram.org/bot1:abc/sendMessage")).toBe(
      "GET https://api.telegram.org/bot***/sendMessage",
    );
  });
});
