import { chmod, mkdir, open, readFile, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** The file `downcity channels login` writes in the channel's private state folder (mode 0600). */
export const weixinCredentialsFile = "weixin-credentials.json";

const credentialsSchema = z.object({
  botToken: z
    .string()
    .regex(/^\S{16,}$/, "expected the bot token iLink gave (16 or more characters, no spaces)"),
  /** The API host the binding named (`baseurl`), when it differs from the default. */
  baseUrl: z.url().optional(),
  botId: z.string().optional(),
  /** The WeChat user who scanned the code (their direct chat id). */
  userId: z.string().optional(),
  boundAt: z.string(),
});

/** What a QR binding produced: the bot token and where to use it. */
export type WeixinCredentials = z.output<typeof credentialsSchema>;

/** Reads the stored binding, or undefined when there is none (or it is unreadable). */
export async function readWeixinCredentials(stateDir: string): Promise<WeixinCredentials | undefined> {
  try {
    const parsed = credentialsSchema.safeParse(
      JSON.parse(await readFile(join(stateDir, weixinCredentialsFile), "utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the binding atomically with mode 0600 in a 0700 folder: the token lets anyone act as the bot. */
export async function writeWeixinCredentials(
  stateDir: string,
  credentials: WeixinCredentials,
): Promise<string> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, weixinCredentialsFile);
  const temporary = `${path}.${process.pid}.tmp`;
  // Created 0600 from the first byte (never readable by others, not even briefly), fsynced, then renamed.
  const handle = await open(temporary, "w", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(credentialsSchema.parse(credentials))}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}

/** What `doctor` finds in a channel's stored binding: none, an unusable file, a file others may read, or a good one. */
export type WeixinCredentialsCheck =
  | { state: "missing"; file: string }
  | { state: "bad-shape"; file: string; problem: string }
  | { state: "loose-mode"; file: string; mode: number; credentials: WeixinCredentials }
  | { state: "ok"; file: string; credentials: WeixinCredentials };

/** Inspects the stored binding offline; a problem names fields and modes, never the token. */
export async function inspectWeixinCredentials(stateDir: string): Promise<WeixinCredentialsCheck> {
  const file = join(stateDir, weixinCredentialsFile);
  let text: string;
  let mode: number;
  try {
    [text, mode] = await Promise.all([readFile(file, "utf8"), stat(file).then((info) => info.mode & 0o777)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing", file };
    return { state: "bad-shape", file, problem: `unreadable (${(error as NodeJS.ErrnoException).code})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { state: "bad-shape", file, problem: "not JSON" };
  }
  const parsed = credentialsSchema.safeParse(json);
  if (!parsed.success) {
    const problem = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "the file"}: ${issue.message}`)
      .join("; ");
    return { state: "bad-shape", file, problem };
  }
  // Windows has no Unix modes to check.
  if (process.platform !== "win32" && (mode & 0o077) !== 0)
    return { state: "loose-mode", file, mode, credentials: parsed.data };
  return { state: "ok", file, credentials: parsed.data };
}
