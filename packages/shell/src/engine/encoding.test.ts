import { afterEach, describe, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("encoding", () => {
  test("multibyte characters split across writes and reads stay whole", async () => {
    temp = createTempEngine();
    // Emit "é€😀" one byte at a time with pauses so chunks split inside characters.
    const command = 'for b in c3 a9 e2 82 ac f0 9f 98 80; do printf "\\x$b"; sleep 0.01; done; echo';
    const result = await temp.engine.exec({ command });
    expect(result.output).toBe("é€😀\n");
    const started = await temp.engine.start({ command: "printf 'aé€😀b'", yield_ms: 2000 });
    let cursor = 0;
    let text = "";
    for (let guard = 0; guard < 20 && cursor < 11; guard++) {
      const read = await temp.engine.read({ shell_id: started.shell_id, cursor, max_bytes: 3 });
      expect(read.output).not.toContain("\ufffd");
      text += read.output;
      cursor = read.next_cursor;
    }
    expect(text).toBe("aé€😀b");
  });

  test("NUL bytes, random bytes and progress bars render as readable text", async () => {
    temp = createTempEngine();
    const nul = await temp.engine.exec({ command: "printf 'left\\0right\\n'" });
    expect(nul.output).toBe("leftright\n");
    expect(nul.bytes_total).toBe(11);
    const random = await temp.engine.exec({ command: "head -c 5000 /dev/urandom" });
    expect(random.output).toMatch(/^\[binary output: 5000 bytes not shown/);
    const progress = await temp.engine.exec({
      command: "for i in 10 50 100; do printf '\\r\\033[32m%3d%%\\033[0m' $i; done; printf '\\ndone\\n'",
    });
    expect(progress.output).toBe("100%\ndone\n");
    const pty = await temp.engine.exec({
      command: "printf 'a\\tb\\n'; printf '\\033]0;title\\007ok\\n'",
      tty: true,
    });
    expect(pty.output).toBe("a\tb\nok\n");
  });
});
