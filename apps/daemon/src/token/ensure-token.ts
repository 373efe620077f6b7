import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError } from "@downcity/core/primitives";
import { downcityHome } from "./downcity-home.js";

const tokenPattern = /^[0-9a-f]{64}$/;

/** Reads the API bearer token from `$DOWNCITY_HOME/token`; undefined when it does not exist yet. */
export async function readToken(
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  const path = join(downcityHome(env), "token");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const token = text.trim();
  if (!tokenPattern.test(token)) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `${path} does not hold a 64-hex-digit token. Delete it and run any downcity command to create a new one.`,
      { field: "token" },
    );
  }
  return token;
}

/** Returns the API token, creating a 256-bit one (0600, in a 0700 folder) on first use; safe under races. */
export async function ensureToken(env: Record<string, string | undefined> = process.env): Promise<string> {
  const home = downcityHome(env);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const info = await stat(home);
  if ((info.mode & 0o077) !== 0) await chmod(home, 0o700);
  const existing = await readToken(env);
  if (existing) return existing;
  const path = join(home, "token");
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString("hex")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // link() fails when the token exists, so concurrent first runs agree on one token.
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await rm(temp, { force: true });
  }
  const token = await readToken(env);
  if (!token) throw new DowncityError("INTERNAL", `Could not create the API token at ${path}`);
  return token;
}
