import { describe, expect, it } from "vitest";
import { maskStepText } from "./mask-step-text.js";

describe("maskStepText", () => {
  it.each([
    ["OPENAI_API_KEY=sk-live-abc123 npm test", "OPENAI_API_KEY=*** npm test"],
    [
      "curl -H 'Authorization: Bearer abcdefgh12345678' https://x.test",
      "curl -H 'Authorization: Bearer ***' https://x.test",
    ],
    ["git clone https://ada:hunter22@example.com/repo.git", "git clone https://***@example.com/repo.git"],
    ["deploy --token s3cr3t-value now", "deploy --token *** now"],
    ["mysql --password=pw123", "mysql --password=***"],
    ["echo ghp_0123456789abcdefABCDEF0123", "echo ***"],
  ])("masks %s", (input, expected) => {
    expect(maskStepText(input)).toBe(expected);
  });

  it("masks configured secrets wherever they appear, and cuts long commands", () => {
    expect(maskStepText("echo plainpassword", ["plainpassword"])).toBe("echo ***");
    const long = maskStepText(`npm run ${"a".repeat(100)}`);
    expect(long.length).toBe(60);
    expect(long.endsWith("…")).toBe(true);
  });

  it("leaves an ordinary command alone", () => {
    expect(maskStepText("npm   test -- --run src/app.test.ts")).toBe("npm test -- --run src/app.test.ts");
  });
});
