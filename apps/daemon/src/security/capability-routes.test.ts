import { DowncityError } from "@downcity/core";
import { expect, test } from "vitest";
import { createRequestGuard } from "../plugins/request-guard.js";
import { capabilityAccess } from "./capability-routes.js";
import { createCapabilityTokens } from "./capability-tokens.js";

function verdict(guard: ReturnType<typeof createRequestGuard>, token: string, method: string, url: string) {
  try {
    guard({ method, url, headers: { host: "127.0.0.1:4000", authorization: `Bearer ${token}` } });
    return "pass";
  } catch (error) {
    return DowncityError.isInstance(error) ? error.code : "other";
  }
}

test("the guard lets a capability token reach only its routes; without the check (the console) it is a wrong token", () => {
  const tokens = createCapabilityTokens();
  const capability = tokens.issue({ shellId: "sh_1", contextId: "cli:main" });
  expect(capability).toMatch(/^dcc_[A-Za-z0-9_-]{43}$/);
  const daemon = createRequestGuard({
    token: "user-token",
    publicPaths: ["/api/health"],
    capability: capabilityAccess(tokens),
  });
  const consoleGuard = createRequestGuard({ token: "user-token", publicPaths: ["/api/health"] });
  expect(verdict(daemon, capability, "POST", "/api/chat/send")).toBe("pass");
  expect(verdict(daemon, capability, "GET", "/api/chat/history?contextId=cli:main")).toBe("pass");
  expect(verdict(daemon, capability, "GET", "/api/chat/events")).toBe("pass");
  expect(verdict(daemon, capability, "POST", "/api/services/command")).toBe("pass");
  expect(verdict(daemon, capability, "GET", "/api/services/list")).toBe("pass");
  for (const [method, url] of [
    ["POST", "/api/services/control"],
    ["GET", "/api/services/command"],
    ["POST", "/api/chat/cancel"],
    ["GET", "/api/contexts"],
    ["GET", "/api/logs"],
    ["GET", "/api/plugins"],
    ["POST", "/api/chat/history"],
  ] as const)
    expect([method, url, verdict(daemon, capability, method, url)]).toEqual([method, url, "FORBIDDEN"]);
  expect(verdict(daemon, "dcc_forged", "GET", "/api/chat/history")).toBe("UNAUTHORIZED");
  expect(verdict(consoleGuard, capability, "GET", "/api/agents")).toBe("UNAUTHORIZED");
  expect(verdict(daemon, "user-token", "POST", "/api/services/control")).toBe("pass");
  tokens.revoke(capability);
  expect(verdict(daemon, capability, "GET", "/api/chat/history")).toBe("UNAUTHORIZED");
});
