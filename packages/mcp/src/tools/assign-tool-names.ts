import { createHash } from "node:crypto";

/** Longest tool name the model APIs accept (OpenAI rejects longer ones). */
export const maxToolNameLength = 64;

/** One MCP tool to name: the config name of its server and the tool's own name. */
export interface ToolIdentity {
  server: string;
  tool: string;
}

const identityKey = (identity: ToolIdentity): string => `${identity.server}\u0000${identity.tool}`;

const shortHash = (identity: ToolIdentity): string =>
  createHash("sha256").update(identityKey(identity)).digest("hex").slice(0, 6);

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (colons, dots and spaces are rejected by model APIs). */
export function sanitizeToolNamePart(part: string): string {
  const sanitized = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return sanitized.length > 0 ? sanitized : "_";
}

/** `mcp__<server>__<tool>` sanitised, cut to 64 chars with a hash of the original names when longer. */
export function mcpToolName(identity: ToolIdentity): string {
  const name = `mcp__${sanitizeToolNamePart(identity.server)}__${sanitizeToolNamePart(identity.tool)}`;
  if (name.length <= maxToolNameLength) return name;
  return withSuffix(name, shortHash(identity));
}

function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, maxToolNameLength - suffix.length - 1)}_${suffix}`;
}

/**
 * Names every tool, resolving collisions deterministically: within a group of tools whose sanitised
 * names clash, the tool whose original name is already valid (else the first by server, then tool name)
 * keeps the plain name and the others get a suffix hashed from their original names.
 */
export function assignToolNames(identities: ReadonlyArray<ToolIdentity>): Map<string, string> {
  const groups = new Map<string, ToolIdentity[]>();
  for (const identity of identities) {
    const candidate = mcpToolName(identity);
    const group = groups.get(candidate) ?? [];
    group.push(identity);
    groups.set(candidate, group);
  }
  const taken = new Set(groups.keys());
  const names = new Map<string, string>();
  const byCandidate = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [candidate, group] of byCandidate) {
    const ordered = [...new Map(group.map((identity) => [identityKey(identity), identity])).values()].sort(
      compareIdentities(candidate),
    );
    const [first, ...rest] = ordered;
    if (!first) continue;
    names.set(identityKey(first), candidate);
    for (const identity of rest) {
      let suffix = shortHash(identity);
      let name = withSuffix(candidate, suffix);
      for (let counter = 2; taken.has(name); counter += 1) {
        suffix = `${shortHash(identity)}${counter}`;
        name = withSuffix(candidate, suffix);
      }
      taken.add(name);
      names.set(identityKey(identity), name);
    }
  }
  return names;
}

/** The key `assignToolNames` files a tool's name under. */
export function toolNameKey(identity: ToolIdentity): string {
  return identityKey(identity);
}

function compareIdentities(candidate: string): (a: ToolIdentity, b: ToolIdentity) => number {
  const exact = (identity: ToolIdentity) => `mcp__${identity.server}__${identity.tool}` === candidate;
  return (a, b) => {
    if (exact(a) !== exact(b)) return exact(a) ? -1 : 1;
    const left = identityKey(a);
    const right = identityKey(b);
    return left < right ? -1 : left > right ? 1 : 0;
  };
}
