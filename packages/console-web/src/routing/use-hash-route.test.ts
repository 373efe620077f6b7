import { describe, expect, it } from "vitest";
import { parseHash, routeHref } from "./use-hash-route.js";

describe("hash routes", () => {
  it("round-trips an agent page with a context id holding slashes and colons", () => {
    const route = {
      page: "chats" as const,
      agent: "/home/me/my project",
      detail: "console:main/1",
      focus: "msg-1",
    };
    expect(parseHash(routeHref(route))).toEqual(route);
  });

  it("falls back to the agents list for unknown pages", () => {
    expect(parseHash("#/agent/x/nope")).toEqual({ page: "agents" });
    expect(parseHash("")).toEqual({ page: "agents" });
  });
});
