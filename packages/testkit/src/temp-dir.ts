import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory under the system's temporary folder, and how to remove it with all it holds. */
export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Creates `<tmpdir>/<prefix><random>`; `remove()` (or `await using`) deletes it recursively. */
export async function createTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  const remove = () => rm(path, { recursive: true, force: true });
  return { path, remove, [Symbol.asyncDispose]: remove };
}
