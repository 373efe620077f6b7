import { InvalidPromptError, type ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { checkedPrompt } from "./checked-prompt.js";

describe("checkedPrompt", () => {
  it("refuses an empty prompt and a message the AI SDK's schema refuses, naming the message", async () => {
    await expect(checkedPrompt([])).rejects.toBeInstanceOf(InvalidPromptError);
    const bad = [
      { role: "user", content: "hi" },
      { role: "user", content: [{ type: "text" }] },
    ] as ModelMessage[];
    await expect(checkedPrompt(bad)).rejects.toThrow(/message 1, role user/);
  });

  it("passes a system message of text without provider options, and checks one with them", async () => {
    await expect(checkedPrompt([{ role: "system", content: "Be brief." }])).resolves.toHaveLength(1);
    const badOptions = {
      role: "system",
      content: "x",
      providerOptions: "not an object",
    } as unknown as ModelMessage;
    await expect(checkedPrompt([badOptions])).rejects.toBeInstanceOf(InvalidPromptError);
    const badContent = { role: "system", content: [{ type: "text", text: "x" }] } as unknown as ModelMessage;
    await expect(checkedPrompt([badContent])).rejects.toBeInstanceOf(InvalidPromptError);
  });

  it("checks an unfrozen message again each time: it may have changed", async () => {
    const message = { role: "user", content: "hi" } as { role: "user"; content: unknown };
    await expect(checkedPrompt([message as ModelMessage])).resolves.toHaveLength(1);
    message.content = [{ type: "text" }];
    await expect(checkedPrompt([message as ModelMessage])).rejects.toBeInstanceOf(InvalidPromptError);
  });

  it("passes frozen messages, checked or not, and returns the same messages", async () => {
    const messages: ModelMessage[] = [
      Object.freeze({ role: "system", content: "Be brief." }),
      Object.freeze({ role: "user", content: "hi" }),
    ];
    expect(await checkedPrompt(messages)).toBe(messages);
    expect(await checkedPrompt(messages)).toBe(messages);
    const frozenBad = Object.freeze({ role: "user", content: 42 }) as unknown as ModelMessage;
    await expect(checkedPrompt([frozenBad])).rejects.toBeInstanceOf(InvalidPromptError);
  });
});
