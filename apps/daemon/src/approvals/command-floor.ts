import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { downcityPaths } from "@downcity/core/primitives";
import { programName } from "./effective-commands.js";

/** Where a command runs and which folders hold what the floor protects. */
export interface FloorPlaces {
  rootDir: string;
  /** The command's working folder (absolute). */
  cwd: string;
  /** The user's home (for `~`). */
  home: string;
  /** `$DOWNCITY_HOME`: the user-level token and state. */
  downcityHome: string;
}

// `.env`, `.env.local`, `.env.production`… but not the committed templates.
const dotenvMention =
  /(^|[\s/'"=:<>;|&(`])\.env(\.(?!example\b|sample\b|template\b|dist\b)[\w-]+)?($|[\s'";|&)<>`])/;
const processEnviron = /\/proc\/[^\s'"]*\/environ\b/;
const homeDowncity = /(~|\$HOME|\$\{HOME\})\/\.downcity\b/;
const outputRedirect = /(^|[^<&0-9])\d?(>>?|>\||&>>?)\s*(['"]?)([^\s'";|&)]+)/g;
/** Programs that only read the paths they are given. */
const readOnlyPrograms = new Set(
  "cat ls head tail grep egrep fgrep rg wc stat file less more jq du tree diff realpath readlink test [ echo printf sort uniq cut basename dirname downcity md5sum sha256sum".split(
    " ",
  ),
);

function globMatches(glob: string, name: string): boolean {
  if (!/[*?[]/.test(glob)) return false;
  const source = glob
    .split("")
    .map((char) =>
      char === "*" ? ".*" : char === "?" ? "." : /[.+^${}()|\\]/.test(char) ? `\\${char}` : char,
    )
    .join("");
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return true;
  }
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function mentionsProjectState(word: string, places: FloorPlaces): boolean {
  if (!/\.downcity/.test(word)) return false;
  const path = resolve(places.cwd, word.replace(/^~(?=\/|$)/, places.home));
  return isInside(path, downcityPaths(places.rootDir).stateDir) || /(^|\/)\.downcity(\/|$)/.test(word);
}

function readsSecret(word: string, places: FloorPlaces): string | undefined {
  const base = programName(word);
  if (dotenvMention.test(word) || globMatches(base, ".env"))
    return "it reads the project's .env, which holds the daemon's keys";
  if (processEnviron.test(word))
    return "it reads a process environment under /proc, where the daemon's keys live";
  if (homeDowncity.test(word) || (word.includes(places.downcityHome) && places.downcityHome.length > 1))
    return "it touches the user-level Downcity folder, which holds the token";
  return undefined;
}

function removesRoot(words: readonly string[], places: FloorPlaces): boolean {
  if (programName(words[0] ?? "") !== "rm") return false;
  const args = words.slice(1);
  if (args.includes("--no-preserve-root")) return true;
  const recursive = args.some((word) => word === "--recursive" || /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(word));
  if (!recursive) return false;
  return args
    .filter((word) => !word.startsWith("-"))
    .some((target) => {
      const expanded = target.replace(/^~(?=\/|$)/, places.home);
      let path = resolve(places.cwd, expanded);
      // `rm -rf ./*` or `/*` empties the folder the glob stands in.
      if (/[*?[]/.test(programName(expanded))) path = dirname(path);
      return path === "/" || path === places.home || isInside(places.rootDir, path);
    });
}

/**
 * The built-in floor no pattern, rule or approval lifts: reading `.env`, a process environment or
 * the user-level Downcity folder; writing into the project's `.downcity/`; `rm -r` of `/`, the
 * home folder, the project root or a folder holding it. It looks at the raw text (so a here-document or a script
 * passed to `python -c` is seen) and at every effective command's literal words (so `.e''nv`
 * is seen). Returns the refusal, or undefined.
 */
export function floorRefusal(
  source: string,
  commands: readonly (readonly string[])[],
  places: FloorPlaces,
): string | undefined {
  const rawSecret = readsSecret(source, places);
  if (rawSecret) return rawSecret;
  for (const match of source.matchAll(outputRedirect)) {
    if (mentionsProjectState(match[4] as string, places))
      return "it writes into the project's .downcity folder (history, journals, approvals)";
  }
  for (const words of commands) {
    for (const word of words) {
      const secret = readsSecret(word, places);
      if (secret) return secret;
    }
    if (removesRoot(words, places))
      return "it removes the project root, a folder holding it, the home folder or /";
    const program = programName(words[0] ?? "");
    const readOnly =
      readOnlyPrograms.has(program) ||
      (program === "find" && !words.some((word) => /^-(delete|exec|execdir|ok|okdir|fprint.*)$/.test(word)));
    if (!readOnly && words.slice(1).some((word) => mentionsProjectState(word, places)))
      return "it writes into the project's .downcity folder (history, journals, approvals)";
  }
  return undefined;
}
