import { describe, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { selectChildEnv } from "./select-child-env.js";

const base = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  OPENAI_API_KEY: "sk-provider",
  TELEGRAM_BOT_TOKEN: "123:bot",
  DATABASE_URL: "postgres://u:p@db/x",
  NODE_ENV: "production",
  GIT_AUTHOR_NAME: "me",
  DC_CTX_TOKEN: "stale",
};
const secret = ["OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN", "DATABASE_URL"];

describe("selectChildEnv", () => {
  test("passes only the minimal set by default", () => {
    const { env, withheld } = selectChildEnv({ base, secret });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/me", LANG: "C.UTF-8", LC_ALL: "C.UTF-8" });
    expect(withheld).toEqual([
      "DATABASE_URL",
      "GIT_AUTHOR_NAME",
      "NODE_ENV",
      "OPENAI_API_KEY",
      "TELEGRAM_BOT_TOKEN",
    ]);
  });

  test("globs pass variables but never a secret; an exact name passes a secret", () => {
    expect(Object.keys(selectChildEnv({ base, secret, pass: ["*"] }).env).sort()).toEqual([
      "GIT_AUTHOR_NAME",
      "HOME",
      "LANG",
      "LC_ALL",
      "NODE_ENV",
      "PATH",
    ]);
    expect(selectChildEnv({ base, secret, pass: ["GIT_*", "*_URL"] }).env.GIT_AUTHOR_NAME).toBe("me");
    expect(selectChildEnv({ base, secret, pass: ["*_URL"] }).env.DATABASE_URL).toBeUndefined();
    expect(selectChildEnv({ base, secret, pass: ["DATABASE_URL"] }).env.DATABASE_URL).toBe(
      "postgres://u:p@db/x",
    );
  });

  test("a secret in the minimal set is held back too, and a glob's dot is literal", () => {
    expect(selectChildEnv({ base, secret: ["HOME"] }).env.HOME).toBeUndefined();
    expect(selectChildEnv({ base: { AXB: "1" }, pass: ["A.B"] }).env).toEqual({});
  });
});

describe("the engine's children", () => {
  let temp: TempEngine | undefined;

  test("`env` shows no secret and no unlisted variable; setEnv and passEnv reach it", async () => {
    temp = createTempEngine({
      env: { ...base, PATH: process.env.PATH },
      secretEnv: secret,
      passEnv: ["NODE_ENV"],
      setEnv: { FROM_CONFIG: "set" },
    });
    try {
      const result = await temp.engine.exec({ command: "env" });
      for (const value of ["sk-provider", "123:bot", "postgres://", "GIT_AUTHOR_NAME", "stale"]) {
        expect(result.output).not.toContain(value);
      }
      expect(result.output).toContain("NODE_ENV=production\n");
      expect(result.output).toContain("FROM_CONFIG=set\n");
    } finally {
      await temp.dispose();
    }
  });
});
