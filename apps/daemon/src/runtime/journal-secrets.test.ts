import { describe, expect, it } from "vitest";
import { journalSecrets } from "./journal-secrets.js";

describe("journalSecrets", () => {
  it("takes secret-named environment values and config strings under secret-named keys", () => {
    const secrets = journalSecrets(
      { llm: { apiKey: "sk-inline-1234", model: "gpt" }, channels: { tg: { token: "${TG_TOKEN}" } } },
      { OPENAI_API_KEY: "sk-env-5678", TG_TOKEN: "123:abc", HOME: "/home/me" },
    );
    expect(secrets.sort()).toEqual(["123:abc", "sk-env-5678", "sk-inline-1234"]);
  });
});
