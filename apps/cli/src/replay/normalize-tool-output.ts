/** Where a tool ran: the recorded project and the throw-away copy, both shown as `<project>`. */
export interface NormalizeRoots {
  projects: string[];
  /** The system's temporary folder: paths under it differ from run to run. */
  tmpDir: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const isoTime = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const shellId = /\bsh_[a-z0-9]{6,40}\b/g;
/**
 * Keys whose values are times, durations or process ids (they differ on every run), and byte counts
 * and cursors (they count the raw output, which holds the project's path: the output itself is compared).
 */
const volatileKey = /(^|_)(at|pid|started|ended|time)$|_at$|At$|_ms$|Ms$|^duration|^elapsed|bytes|_cursor$/;

/** A string with project roots, temp paths, shell ids and times replaced by placeholders. */
function normalizeText(text: string, roots: NormalizeRoots): string {
  let out = text;
  // Longest first, so a copy nested in the temp folder is named as the project, not as a temp path.
  for (const root of [...roots.projects].sort((a, b) => b.length - a.length))
    if (root) out = out.replaceAll(root, "<project>");
  out = out.replace(new RegExp(`${escapeRegExp(roots.tmpDir)}/[^\\s"'\`]*`, "g"), "<tmp>");
  return out.replace(shellId, "<shell>").replace(isoTime, "<time>");
}

/**
 * A tool's output as `runs replay --tools live` compares it: shell ids, times, durations, process
 * ids and temp paths normalised (they differ on every run), the project root written `<project>`.
 */
export function normalizeToolOutput(value: unknown, roots: NormalizeRoots): unknown {
  if (typeof value === "string") return normalizeText(value, roots);
  if (Array.isArray(value)) return value.map((item) => normalizeToolOutput(item, roots));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        volatileKey.test(key) && (typeof item === "number" || typeof item === "string")
          ? `<${key}>`
          : normalizeToolOutput(item, roots),
      ]),
    );
  return value;
}
