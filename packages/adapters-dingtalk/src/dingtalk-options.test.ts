import { describe, expect, it } from "vitest";
import { dingtalkOptionsSchema, robotCodeOf } from "./dingtalk-options.js";

describe("dingtalkOptionsSchema: the credentials' shape, checked offline (config validation and doctor)", () => {
  it("takes a Client ID and secret, with the public endpoints and the robot code defaulting to the Client ID", () => {
    const options = dingtalkOptionsSchema.parse({
      clientId: "dingabcdefgh12345678",
      clientSecret: "s".repeat(32),
      apiBase: "http://127.0.0.1:9000/",
    });
    expect(options).toMatchObject({
      apiBase: "http://127.0.0.1:9000",
      oapiBase: "https://oapi.dingtalk.com",
      markdown: true,
      reconnectDelayMs: 1000,
    });
    expect(robotCodeOf(options)).toBe("dingabcdefgh12345678");
    expect(robotCodeOf({ ...options, robotCode: "dingrobot00000001" })).toBe("dingrobot00000001");
  });

  it("names the field and the fix for a malformed Client ID or a secret too short to be one", () => {
    const result = dingtalkOptionsSchema.safeParse({ clientId: "not an id", clientSecret: "short" });
    expect(result.success).toBe(false);
    const issues = result.error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) ?? [];
    expect(issues).toEqual([
      expect.stringMatching(/^clientId: expected the app's Client ID/),
      expect.stringMatching(/^clientSecret: .*\$\{DINGTALK_CLIENT_SECRET\}/),
    ]);
  });
});
