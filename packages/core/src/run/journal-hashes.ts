import { hash } from "node:crypto";
import type { ToolSet } from "ai";

/**
 * The content hashes the run journal records on every run (`systemHash`, `toolsHash`), kept for
 * the runtime's lifetime: the system messages and the tools rarely change between runs, and each
 * run's recorder would otherwise serialise and hash them again.
 */
export interface JournalHashes {
  /** The hash of the system messages serialised as `text`. */
  system(text: string): string;
  /** The offered tool names and the hash of their names, descriptions and input schemas. */
  tools(set: ToolSet): { names: string[]; hash: string };
}

const shortHash = (text: string) => hash("sha256", text).slice(0, 16);

/**
 * How many system-message texts keep their hash: each context's system messages name the context,
 * so a runtime serving many conversations alternates between as many texts.
 */
const keptSystemTexts = 256;

/**
 * Creates the hash cache of one runtime (one per runtime, never shared between runtimes); `digest`
 * is the hash it keeps (tests count its calls).
 */
export function createJournalHashes(digest: (text: string) => string = shortHash): JournalHashes {
  // Least recently used first (a Map keeps insertion order; a hit is moved to the end).
  const systemHashes = new Map<string, string>();
  let toolsText: string | undefined;
  let toolsHash = "";
  // The tools hashed last: name, description and input schema of each, in order.
  let lastTools: [string, unknown, unknown][] | undefined;
  // A tool's serialised entry by its input schema: the schemas a runtime offers are the same
  // objects run after run (`createToolSchemaCache`) and are not changed once built.
  const entries = new WeakMap<object, { name: string; description: unknown; json: string }>();

  const entryJson = (name: string, description: unknown, schema: unknown) => {
    if (typeof schema !== "object" || schema === null) return JSON.stringify([name, description, schema]);
    const cached = entries.get(schema);
    if (cached && cached.name === name && cached.description === description) return cached.json;
    const json = JSON.stringify([name, description, schema]);
    entries.set(schema, { name, description, json });
    return json;
  };

  return {
    system(text) {
      let known = systemHashes.get(text);
      if (known !== undefined) systemHashes.delete(text);
      else {
        known = digest(text);
        if (systemHashes.size >= keptSystemTexts) {
          const oldest = systemHashes.keys().next().value;
          if (oldest !== undefined) systemHashes.delete(oldest);
        }
      }
      systemHashes.set(text, known);
      return known;
    },
    tools(set) {
      const names = Object.keys(set);
      // The same tools as last time (the same names, descriptions and schema objects): the same hash,
      // without serialising them again.
      if (sameTools(lastTools, names, set)) return { names, hash: toolsHash };
      lastTools = names.map((name) => [name, set[name]?.description, set[name]?.inputSchema]);
      // The same text as `JSON.stringify` of the list of [name, description, schema] entries.
      const text = `[${names.map((name) => entryJson(name, set[name]?.description, set[name]?.inputSchema)).join(",")}]`;
      if (text !== toolsText) {
        toolsText = text;
        toolsHash = digest(text);
      }
      return { names, hash: toolsHash };
    },
  };
}

function sameTools(last: [string, unknown, unknown][] | undefined, names: string[], set: ToolSet): boolean {
  if (!last || last.length !== names.length) return false;
  return names.every((name, index) => {
    const [lastName, description, schema] = last[index] ?? [];
    const tool = set[name];
    return (
      lastName === name &&
      description === tool?.description &&
      typeof schema === "object" &&
      schema !== null &&
      schema === tool?.inputSchema
    );
  });
}
