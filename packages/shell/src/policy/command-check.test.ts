import { afterEach, expect, test } from "vitest";
import { createShellTools } from "../ai/create-shell-tools.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import type { CommandCheckRequest } from "./command-check.js";

let temp: TempEngine | undefined;
afterEach(async () => temp?.dispose());

test("the host's check sees exec and start calls and its refusal is a COMMAND_REFUSED tool error", async () => {
  const seen: CommandCheckRequest[] = [];
  temp = createTempEngine({
    checkCommand: (request) => {
      seen.push(request);
      return request.command.startsWith("echo") ? undefined : `only echo may run, not: ${request.command}`;
    },
  });
  const tools = createShellTools(temp.engine, { contextId: "cli:main" });
  const options = { toolCallId: "1", messages: [] };
  const allowed = await tools.shell_exec.execute?.({ command: "echo ok", tty: false } as never, options);
  expect(allowed).toMatchObject({ exit_code: 0 });
  const refused = await tools.shell_exec.execute?.({ command: "touch nope" } as never, options);
  expect(refused).toEqual({ error: "COMMAND_REFUSED", message: "only echo may run, not: touch nope" });
  const refusedStart = await tools.shell_start.execute?.({ command: "python3", tty: true } as never, options);
  expect(refusedStart).toMatchObject({ error: "COMMAND_REFUSED" });
  expect(seen.map((request) => [request.command, request.tty, request.contextId])).toEqual([
    ["echo ok", false, "cli:main"],
    ["touch nope", false, "cli:main"],
    ["python3", true, "cli:main"],
  ]);
  // Nothing was spawned for the refused commands.
  expect((await temp.engine.list({ status: "all" })).map((session) => session.command)).toEqual(["echo ok"]);
});
