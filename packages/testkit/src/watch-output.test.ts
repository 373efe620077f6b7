import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { watchOutput } from "./watch-output.js";

describe("watchOutput", () => {
  it("collects what the stream writes and waits for a string or a pattern in it", async () => {
    const stream = new PassThrough();
    const output = watchOutput(stream);
    const prompt = output.waitFor("you› ");
    stream.write("hello\n");
    stream.write(Buffer.from("you› "));
    await prompt;
    const reply = output.waitFor(/agent› \d+/);
    stream.write("agent› 42\n");
    await reply;
    expect(output.text).toBe("hello\nyou› agent› 42\n");
  });

  it("fails showing what was written when the needle never comes", async () => {
    const stream = new PassThrough();
    const output = watchOutput(stream);
    stream.write("only this");
    await expect(output.waitFor("that", { timeoutMs: 30, fixed: true })).rejects.toThrow(
      "waiting for that; got:\nonly this",
    );
  });
});
