/**
 * `@downcity/core/primitives`: the error type and the file, lock, process and path primitives,
 * without the agent runtime, so light clients (a CLI's `status`) load no AI SDK.
 */
export { DowncityError } from "./errors/downcity-error.js";
export {
  type DowncityErrorCode,
  downcityErrorCodes,
  httpStatusByCode,
  isDowncityErrorCode,
} from "./errors/error-codes.js";
export { writeFileAtomic } from "./fs/atomic-write.js";
export { acquireFileLock } from "./fs/file-lock.js";
export { packageVersion } from "./fs/package-version.js";
export { readTextFileIfExists } from "./fs/raw-file.js";
export { contextDir, type DowncityPaths, downcityPaths } from "./paths/downcity-paths.js";
export { isProcessAlive, processStartTime } from "./process/process-identity.js";
