import { describe, expect, it } from "vitest";
import { createTelegramAdapter } from "./telegram-adapter.js";
import { parseListen, telegramOptionsSchema } from "./telegram-options.js";

describe("telegram options", () => {
  it("defaults to polling against api.telegram.org and drops a trailing slash from apiRoot", () => {
    expect(telegramOptionsSchema.parse({ token: "1:abc" })).toMatchObject({
      apiRoot: "https://api.telegram.org",
      mode: "polling",
      pollTimeoutSeconds: 30,
      path: "/telegram",
    });
    expect(telegramOptionsSchema.parse({ token: "1:abc", apiRoot: "http://127.0.0.1:81/" }).apiRoot).toBe(
      "http://127.0.0.1:81",
    );
  });

  it("names the bad field and the fix, without echoing the value", () => {
    const bad = "not-a-token-but-a-secret-XYZ";
    let error: unknown;
    try {
      createTelegramAdapter({ token: bad });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "CONFIG_INVALID", field: "token" });
    expect((error as Error).message).toMatch(/token: expected a bot token from @BotFather/);
    expect((error as Error).message).not.toContain(bad);
  });

  it("reads listen as a port on loopback or host:port", () => {
    expect(parseListen(8443)).toEqual({ host: "127.0.0.1", port: 8443 });
    expect(parseListen("0.0.0.0:88")).toEqual({ host: "0.0.0.0", port: 88 });
    expect(parseListen("[::1]:8443")).toEqual({ host: "::1", port: 8443 });
  });
});
