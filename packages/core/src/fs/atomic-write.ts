import { randomBytes } from "node:crypto";
import { open, rename } from "node:fs/promises";
import { dirname } from "node:path";

/** Writes a file so readers see the old or the new content, never a mix: temp file, fsync, rename, fsync dir. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "w");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDirectory(dirname(path));
}

/** Makes a rename or create in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r").catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}
