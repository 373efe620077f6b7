import { chmod, mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** The file `downcity channels login` writes in the channel's private state folder (mode 0600). */
export const weixinCredentialsFile = "weixin-credentials.json";

const credentialsSchema = z.object({
  botToken: z.string().min(1),
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
