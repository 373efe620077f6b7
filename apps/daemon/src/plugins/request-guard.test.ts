import { describe, expect, it } from "vitest";
import { createRequestGuard } from "./request-guard.js";

const token = "k".repeat(64);
const guard = createRequestGuard({ token, publicPaths: ["/api/health"] });
const auth = `Bearer ${token}`;

/** The error code the guard throws for a request, or "pass". */
const verdict = (url: string, headers: Record<string, string>) => {
  try {
    guard({ url, headers });
    return "pass";
  } catch (error) {
    return `${(error as { code: string }).code}:${(error as { field?: string }).field}`;
  }
};

describe("createRequestGuard", () => {
  it("accepts loopback Hosts in every spelling and rejects everything else", () => {
    for (const host of [
      "127.0.0.1:4567",
      "localhost:4567",
      "LocalHost",
      "[::1]:4567",
      "[::1]",
      "127.0.0.1",
    ]) {
      expect(verdict("/api/health", { host }), host).toBe("pass");
    }
    for (const host of [
      "",
      "evil.example",
      "127.0.0.2:4567",
      "0.0.0.0:4567",
      "[::2]:4567",
      "localhost:4567:1",
    ]) {
      expect(verdict("/api/health", { host }), host).toBe("FORBIDDEN:host");
    }
    expect(verdict("/api/health", {})).toBe("FORBIDDEN:host");
  });

  it("accepts an Origin only when it is this same server over http", () => {
    const host = "127.0.0.1:4567";
    for (const origin of ["http://127.0.0.1:4567", "http://localhost:4567", "http://[::1]:4567"]) {
      expect(verdict("/api/agents", { host, origin, authorization: auth }), origin).toBe("pass");
    }
    expect(verdict("/", { host: "localhost", origin: "http://localhost", authorization: auth })).toBe("pass");
    for (const origin of [
      "http://127.0.0.1:4568",
      "https://127.0.0.1:4567",
      "http://evil.example:4567",
      "null",
      "",
      "file://",
      "http://127.0.0.1",
    ]) {
      expect(verdict("/api/health", { host, origin }), origin).toBe("FORBIDDEN:origin");
    }
  });

  it("lets only the exact public paths through without the token, query ignored", () => {
    const host = "127.0.0.1:1";
    expect(verdict("/api/health?probe=1", { host })).toBe("pass");
    for (const url of ["/api/health/", "/api/healthz", "/API/HEALTH", "/api/%68ealth", "/", "/api/agents"]) {
      expect(verdict(url, { host }), url).toBe("UNAUTHORIZED:authorization");
    }
    for (const authorization of [
      "",
      "Bearer",
      `bearer ${token}`,
      `Bearer ${token.slice(1)}`,
      `Token ${token}`,
    ]) {
      expect(verdict("/api/agents", { host, authorization }), authorization).toBe(
        "UNAUTHORIZED:authorization",
      );
    }
    expect(verdict("/api/agents", { host, authorization: auth })).toBe("pass");
  });
});
