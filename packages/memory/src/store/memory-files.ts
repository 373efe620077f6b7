import { join } from "node:path";
import { contextDir, downcityPaths } from "@downcity/core";

/** Where one context's memory lives: `.downcity/context/<encoded>/memory/`. */
export interface ContextMemoryFiles {
  dir: string;
  primary: string;
  meta: string;
  backupDir: string;
  lock: string;
}

/** Where the project-wide profile lives: `.downcity/profile/`. */
export interface ProfileFiles {
  dir: string;
  primary: string;
  other: string;
  lock: string;
}

/** Paths of a context's memory files. */
export function contextMemoryFiles(rootDir: string, contextId: string): ContextMemoryFiles {
  const dir = join(contextDir(rootDir, contextId), "memory");
  return {
    dir,
    primary: join(dir, "Primary.md"),
    meta: join(dir, ".meta.json"),
    backupDir: join(dir, "backup"),
    lock: join(dir, "memory.lock"),
  };
}

/** Paths of the profile files injected into every context. */
export function profileFiles(rootDir: string): ProfileFiles {
  const dir = downcityPaths(rootDir).profileDir;
  return {
    dir,
    primary: join(dir, "Primary.md"),
    other: join(dir, "other.md"),
    lock: join(dir, "profile.lock"),
  };
}
