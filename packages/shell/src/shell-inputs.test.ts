import { describe, expect, test } from "vitest";
import {
  shellCloseInput,
  shellExecInput,
  shellReadInput,
  shellStartInput,
  shellWaitInput,
  shellWriteInput,
} from "./shell-inputs.js";

const id = "sh_abc123def";

describe("tool contract defaults and limits", () => {
  test("shell_exec", () => {
    expect(shellExecInput.parse({ command: "ls" })).toEqual({
      command: "ls",
      tty: false,
      timeout_ms: 120000,
      max_output_chars: 30000,
    });
    expect(shellExecInput.safeParse({ command: "ls", timeout_ms: 600000 }).success).toBe(true);
    expect(shellExecInput.safeParse({ command: "ls", timeout_ms: 600001 }).success).toBe(false);
  });

  test("shell_start", () => {
    expect(shellStartInput.parse({ command: "ls" })).toMatchObject({
      tty: false,
      cols: 80,
      rows: 24,
      yield_ms: 1000,
      notify: true,
      mode: "background",
    });
    expect(shellStartInput.parse({ command: "ls" }).timeout_ms).toBeUndefined();
    expect(shellStartInput.safeParse({ command: "ls", yield_ms: 30000 }).success).toBe(true);
    expect(shellStartInput.safeParse({ command: "ls", yield_ms: 30001 }).success).toBe(false);
    expect(shellStartInput.safeParse({ command: "ls", yield_ms: -1 }).success).toBe(false);
  });

  test("shell_read, shell_write, shell_wait, shell_close", () => {
    expect(shellReadInput.parse({ shell_id: id })).toEqual({
      shell_id: id,
      stream: "combined",
      max_bytes: 32768,
    });
    expect(shellReadInput.safeParse({ shell_id: id, stream: "both" }).success).toBe(false);
    expect(shellWriteInput.parse({ shell_id: id, input: "x" })).toEqual({
      shell_id: id,
      input: "x",
      eof: false,
      yield_ms: 250,
    });
    expect(shellWaitInput.parse({ shell_id: id })).toEqual({
      shell_id: id,
      until: "any",
      timeout_ms: 30000,
      stream: "combined",
    });
    expect(shellWaitInput.safeParse({ shell_id: id, timeout_ms: 300000 }).success).toBe(true);
    expect(shellWaitInput.safeParse({ shell_id: id, timeout_ms: 300001 }).success).toBe(false);
    expect(shellCloseInput.parse({ shell_id: id })).toEqual({ shell_id: id, grace_ms: 2000 });
    expect(shellCloseInput.safeParse({ shell_id: "abc" }).error?.issues[0]?.message).toMatch(/sh_/);
  });
});
