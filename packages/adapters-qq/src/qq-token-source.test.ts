import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createQqTokenSource } from "./qq-token-source.js";

describe("QQ access tokens", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  const tokenServer = async (answer: () => { status: number; body: unknown }) => {
    const requests: unknown[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        requests.push(JSON.parse(body));
        const { status, body: reply } = answer();
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app/getAppAccessToken`,
      requests,
    };
  };

  it("reads expires_in as the string it is, and refreshes a minute before it runs out", async () => {
    let issued = 0;
    const server = await tokenServer(() => ({
      status: 200,
      body: { access_token: `tok${++issued}`, expires_in: "7200" },
    }));
    let now = 1_000_000;
    const tokens = createQqTokenSource({
      tokenUrl: server.url,
      appId: "102000001",
      clientSecret: "secret-123",
      now: () => now,
    });
    const [a, b] = await Promise.all([tokens.token(), tokens.token()]);
    expect([a, b]).toEqual(["tok1", "tok1"]);
    expect(server.requests).toEqual([{ appId: "102000001", clientSecret: "secret-123" }]);
    now += 7200_000 - 61_000;
    expect(await tokens.token()).toBe("tok1");
    now += 2_000;
    expect(await tokens.token()).toBe("tok2");
    tokens.invalidate();
    expect(await tokens.token()).toBe("tok3");
  });

  it("fails with the platform's message and never the secret", async () => {
    const server = await tokenServer(() => ({
      status: 200,
      body: { code: 100016, message: "invalid appid or secret" },
    }));
    const tokens = createQqTokenSource({
      tokenUrl: server.url,
      appId: "102000001",
      clientSecret: "secret-123",
    });
    const error = (await tokens.token().catch((caught: unknown) => caught as Error)) as Error;
    expect(error).toMatchObject({ name: "QqApiError" });
    expect(error.message).toMatch(/invalid appid or secret.*check appId and clientSecret/);
    expect(error.message).not.toContain("secret-123");
  });
});
