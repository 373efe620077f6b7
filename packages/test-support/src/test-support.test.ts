import { createServer } from "node:http";
import { freePort, until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { startEchoModel } from "./echo-model.js";
import { webhookFakes } from "./webhook-fakes.js";

const ask = (url: string, text: string) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: text }] }),
  }).then(
    async (response) => (await response.json()) as { choices: Array<{ message: { content: string } }> },
  );

describe("test-support", () => {
  it("echo model: echoes, holds the first matching call until released, then answers at once", async () => {
    const model = await startEchoModel({ hold: "slow" });
    try {
      expect((await ask(model.url, "hi")).choices[0]?.message.content).toBe("echo: hi");
      const held = ask(model.url, "a slow one");
      await until(() => model.holding(), "the held call");
      model.release();
      expect((await held).choices[0]?.message.content).toBe("echo: a slow one");
      expect((await ask(model.url, "slow again")).choices[0]?.message.content).toBe("echo: slow again");
      expect(model.userTexts()).toEqual(["hi", "a slow one", "slow again"]);
    } finally {
      await model.close();
    }
  });

  it("webhookFakes hands the fake a free port's URL and the adapter the matching listen address", async () => {
    const fakes = webhookFakes("/hook", async (url) => ({ url }));
    const fake = await fakes.createFake();
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
    expect(fake.url).toBe(`http://${fakes.listen(fake)}/hook`);
    expect(() => fakes.listen({ url: "elsewhere" })).toThrow(/not made by createFake/);
    const server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
