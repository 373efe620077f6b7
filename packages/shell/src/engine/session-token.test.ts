import { afterEach, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine | undefined;
afterEach(async () => temp?.dispose());

test("a token function gives each session its own DC_CTX_TOKEN, asked with the session and its context", async () => {
  const asked: Array<{ shellId: string; contextId?: string }> = [];
  temp = createTempEngine({
    env: { PATH: process.env.PATH, DOWNCITY_TOKEN_LIKE: "x" },
    server: {
      host: "127.0.0.1",
      port: 1,
      token: (session) => {
        asked.push(session);
        return `cap-${session.shellId}`;
      },
    },
  });
  const first = await temp.engine.exec({ command: 'printf "%s" "$DC_CTX_TOKEN"' }, { contextId: "cli:a" });
  const second = await temp.engine.exec({ command: 'printf "%s" "$DC_CTX_TOKEN"' });
  expect(first.output).toBe(`cap-${first.shell_id}`);
  expect(second.output).toBe(`cap-${second.shell_id}`);
  expect(asked).toEqual([{ shellId: first.shell_id, contextId: "cli:a" }, { shellId: second.shell_id }]);
});
