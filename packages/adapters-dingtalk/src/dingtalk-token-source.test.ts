import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import { createDingtalkTokenSource } from "./dingtalk-token-source.js";
import {
  type FakeDingtalkPlatform,
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "./test/fake-dingtalk-platform.js";

describe("the DingTalk token source", () => {
  let fake: FakeDingtalkPlatform;
  beforeEach(async () => {
    fake = await startFakeDingtalkPlatform();
  });
  afterEach(() => fake.close());

  it("shares one request among concurrent callers, keeps the token until near expireIn, and refetches after invalidate", async () => {
    let now = 1_000_000;
    const tokens = createDingtalkTokenSource({
      apiBase: fake.apiBase,
      clientId: fakeDingtalkClientId,
      clientSecret: fakeDingtalkSecret,
      now: () => now,
    });
    const [first, second] = await Promise.all([tokens.token(), tokens.token()]);
    expect(first).toBe(second);
    expect(fake.tokensIssued()).toBe(1);
    now += 7200_000 - 600_000;
    expect(await tokens.token()).toBe(first);
    now += 400_000;
    expect(await tokens.token()).not.toBe(first);
    tokens.invalidate();
    await tokens.token();
    expect(fake.tokensIssued()).toBe(3);
  });

  it("reports refused credentials with DingTalk's code, naming the fields to check and not the secret", async () => {
    const tokens = createDingtalkTokenSource({
      apiBase: fake.apiBase,
      clientId: fakeDingtalkClientId,
      clientSecret: "wrongSecret-0123456789abcdef",
    });
    const error = await tokens.token().catch((failure: unknown) => failure);
    expect(DingtalkApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: "invalidClientIdOrSecret", credentialsRejected: true });
    expect((error as Error).message).toMatch(/check clientId and clientSecret/);
    expect((error as Error).message).not.toContain("wrongSecret");
  });
});
