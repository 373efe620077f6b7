import { describe, expect, it } from "vitest";
import { nearestKey } from "./nearest-key.js";

describe("nearestKey", () => {
  it("suggests the key a typo most likely meant", () => {
    expect(nearestKey("chanels", ["llm", "channels", "plugins"])).toBe("channels");
    expect(nearestKey("baseUrl", ["provider", "model", "baseURL", "apiKey"])).toBe("baseURL");
    expect(nearestKey("lnaes", ["lanes", "run"])).toBe("lanes");
  });

  it("suggests nothing when no key is close", () => {
    expect(nearestKey("jira", ["llm", "channels", "memory"])).toBeUndefined();
    expect(nearestKey("x", [])).toBeUndefined();
  });
});
