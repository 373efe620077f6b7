import { afterEach, describe, expect, test } from "vitest";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("shell_write", () => {
  test.each([false, true])("drives `read x` and python input() prompts (tty=%s)", async (tty) => {
    temp = createTempEngine();
    const bash = await temp.engine.start({
      command: "printf 'name? '; read x; echo hello $x",
      tty,
      yield_ms: 100,
    });
    const prompt = await temp.engine.wait({
      shell_id: bash.shell_id,
      pattern: "name\\?",
      cursor: 0,
      timeout_ms: 10000,
    });
    expect(bash.output + prompt.output).toContain("name?");
    await temp.engine.write({ shell_id: bash.shell_id, input: "ada\n" });
    const done = await temp.engine.wait({ shell_id: bash.shell_id, until: "exit", cursor: 0 });
    expect(done.output).toContain("hello ada");
    expect(done.exit_code).toBe(0);

    const python = await temp.engine.start({
      command: 'python3 -c \'x = input("value: "); print("twice", int(x) * 2)\'',
      tty,
      yield_ms: 0,
    });
    await temp.engine.wait({ shell_id: python.shell_id, pattern: "value:", cursor: 0, timeout_ms: 10000 });
    const answer = await temp.engine.write({ shell_id: python.shell_id, input: "21\n", yield_ms: 2000 });
    const final = await temp.engine.wait({ shell_id: python.shell_id, until: "exit" });
    expect(answer.output + final.output).toContain("twice 42");
  });

  test("eof closes stdin on pipes", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "wc -l", yield_ms: 0 });
    await temp.engine.write({ shell_id: started.shell_id, input: "a\nb\nc\n", eof: true });
    const done = await temp.engine.wait({ shell_id: started.shell_id, until: "exit", cursor: 0 });
    expect(done.output.trim()).toBe("3");
  });

  test("writing after exit is SESSION_EXITED and EPIPE crashes nothing", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "exit 0", yield_ms: 2000 });
    expect(started.status).toBe("exited");
    const error = await temp.engine
      .write({ shell_id: started.shell_id, input: "x\n" })
      .catch((e: unknown) => e);
    expect(ShellError.isInstance(error)).toBe(true);
    expect((error as ShellError).code).toBe("SESSION_EXITED");
    // Closes stdin right away, then we keep writing: EPIPE must be swallowed.
    const closer = await temp.engine.start({ command: "exec 0<&-; sleep 0.3", yield_ms: 50 });
    for (let i = 0; i < 5; i++) {
      await temp.engine.write({ shell_id: closer.shell_id, input: "data\n".repeat(10000), yield_ms: 0 });
    }
    const done = await temp.engine.wait({ shell_id: closer.shell_id, until: "exit" });
    expect(done.status).toBe("exited");
  });

  test("stdin to a process that never reads does not block", async () => {
    temp = createTempEngine();
    for (const tty of [false, true]) {
      const started = await temp.engine.start({ command: "sleep 5", tty, yield_ms: 0 });
      const began = Date.now();
      const result = await temp.engine.write({
        shell_id: started.shell_id,
        input: "z".repeat(200000),
        yield_ms: 50,
      });
      expect(result.bytes_written).toBe(200000);
      expect(Date.now() - began).toBeLessThan(2000);
      await temp.engine.close({ shell_id: started.shell_id, grace_ms: 100 });
    }
  });
});
