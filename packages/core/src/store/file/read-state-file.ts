import { DowncityError } from "../../errors/downcity-error.js";
import { readTextFileIfExists } from "../../fs/raw-file.js";

/**
 * Reads one of the host's JSON state files (`contacts.json`, a channel's `access.json`):
 * undefined when it does not exist yet; CONFIG_INVALID naming the file when it does not parse.
 */
export async function readStateFile(path: string): Promise<unknown> {
  const text = await readTextFileIfExists(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `Cannot read ${path}: ${(error as Error).message}. Fix or delete the file.`,
      { field: path, cause: error },
    );
  }
}
