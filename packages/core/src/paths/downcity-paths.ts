import { join, posix, resolve } from "node:path";
import { encodeContextId } from "../context/context-id.js";

/** Every location under a project's `.downcity/` folder; the only place that spells the layout out. */
export interface DowncityPaths {
  rootDir: string;
  /** `.downcity/` itself. */
  stateDir: string;
  /** `.downcity/context/`: one folder per conversation. */
  contextsDir: string;
  /** `.downcity/context/<encoded id>`. */
  contextDir(contextId: string): string;
  /** `.downcity/debug/`: pid, lock and meta files of the running daemon. */
  debugDir: string;
  /** `.downcity/logs/`: daily JSON-lines logs. */
  logsDir: string;
  /** `.downcity/schema/downcity.schema.json`: editor completion for `downcity.json`. */
  schemaFile: string;
  /** `.downcity/shell/`: shell session state. */
  shellDir: string;
  /** `.downcity/task/`: task definitions and runs. */
  tasksDir: string;
  /** `.downcity/profile/`: the agent's long-term memory files. */
  profileDir: string;
  /** `.downcity/cache/`: files that can be rebuilt at any time. */
  cacheDir: string;
  /** `.downcity/plugins/<name>/`: a plug-in's private state folder. */
  pluginDir(name: string): string;
  /** `.downcity/channels/`: the durable inbox and outbox logs. */
  channelsDir: string;
  /** `.downcity/channels/<name>/`: a channel instance's access state and its adapter's private state. */
  channelDir(name: string): string;
  /** `.downcity/contacts.json`: the contact book. */
  contactsFile: string;
  /** `.downcity/runs/`: run journals, `<date>/<requestId>.jsonl`. */
  runsDir: string;
  /** `.downcity/media/`: files people sent (`<context>/`) and files the agent sent (`sent/`). */
  mediaDir: string;
  /** `.downcity/approvals.json`: pending approvals, "always" rules and recent decisions. */
  approvalsFile: string;
}

/** The state folder's name inside a project. */
const stateFolder = ".downcity";

/** A project-relative, `/`-separated path under `.downcity/` (what history and the outbox record). */
export function statePath(...segments: string[]): string {
  return posix.join(stateFolder, ...segments);
}

/** Resolves the `.downcity/` layout of the project at `rootDir`. */
export function downcityPaths(rootDir: string): DowncityPaths {
  const root = resolve(rootDir);
  const stateDir = join(root, stateFolder);
  const contextsDir = join(stateDir, "context");
  return {
    rootDir: root,
    stateDir,
    contextsDir,
    contextDir: (contextId) => join(contextsDir, encodeContextId(contextId)),
    debugDir: join(stateDir, "debug"),
    logsDir: join(stateDir, "logs"),
    schemaFile: join(stateDir, "schema", "downcity.schema.json"),
    shellDir: join(stateDir, "shell"),
    tasksDir: join(stateDir, "task"),
    profileDir: join(stateDir, "profile"),
    cacheDir: join(stateDir, "cache"),
    pluginDir: (name) => join(stateDir, "plugins", name),
    channelsDir: join(stateDir, "channels"),
    channelDir: (name) => join(stateDir, "channels", name),
    contactsFile: join(stateDir, "contacts.json"),
    runsDir: join(stateDir, "runs"),
    mediaDir: join(stateDir, "media"),
    approvalsFile: join(stateDir, "approvals.json"),
  };
}

/** The `.downcity/context/<encoded>` directory of a context. */
export function contextDir(rootDir: string, contextId: string): string {
  return downcityPaths(rootDir).contextDir(contextId);
}
