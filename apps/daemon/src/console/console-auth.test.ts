import { describe, expect, it } from "vitest";
import { createConsoleAuth } from "./console-auth.js";

describe("console login codes and sessions", () => {
  it("exchanges a code once, refuses a second use and an expired code", () => {
    let time = 1_000_000;
    const auth = createConsoleAuth({ now: () => time, codeTtlMs: 60_000, sessionIdleMs: 10_000 });
    const { code, expiresAt } = auth.issueCode();
    expect(Date.parse(expiresAt)).toBe(time + 60_000);
    const session = auth.exchange(code);
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(auth.exchange(code)).toBeUndefined();
    expect(auth.verify(session)).toBe(true);

    const late = auth.issueCode().code;
    time += 60_001;
    expect(auth.exchange(late)).toBeUndefined();
    expect(auth.verify(session)).toBe(false);
  });

  it("keeps a used session alive, ends it on logout, and knows no made-up id", () => {
    let time = 0;
    const auth = createConsoleAuth({ now: () => time, sessionIdleMs: 10_000 });
    const session = auth.exchange(auth.issueCode().code);
    time += 9_000;
    expect(auth.verify(session)).toBe(true);
    time += 9_000;
    expect(auth.verify(session)).toBe(true);
    auth.end(session);
    expect(auth.verify(session)).toBe(false);
    expect(auth.verify("made-up")).toBe(false);
    expect(auth.verify(undefined)).toBe(false);
  });
});
