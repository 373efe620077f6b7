/**
 * The variables every child receives from the base environment without being asked for: what a
 * shell needs to find programs, the user, the locale, the terminal and the time zone. Nothing here
 * carries a credential.
 */
export const minimalChildEnv: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_*",
  "TERM",
  "SHELL",
  "TMPDIR",
  "TZ",
];

/** Inputs of `selectChildEnv`. */
export interface SelectChildEnvOptions {
  base: Record<string, string | undefined>;
  /** Names or globs (`*` matches any run of characters) passed besides the minimal set. */
  pass?: readonly string[] | undefined;
  /** Names (or patterns) the host marks secret: passed only when `pass` lists the exact name. */
  secret?: ReadonlyArray<string | RegExp> | undefined;
}

/** What `selectChildEnv` decided: the variables passed and the names held back. */
export interface SelectedChildEnv {
  env: Record<string, string>;
  /** Base variables not passed (sorted), for `doctor` and logs; never their values. */
  withheld: string[];
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`);
}

/**
 * Picks the base variables a child may see: the minimal set and `pass`, minus secrets. A secret is
 * passed only when `pass` names it exactly, so a glob such as `*` can never leak one. `DC_CTX_*`
 * of the base are dropped: the engine sets its own.
 */
export function selectChildEnv(options: SelectChildEnvOptions): SelectedChildEnv {
  const pass = options.pass ?? [];
  const exact = new Set(pass.filter((entry) => !entry.includes("*")));
  const globs = [...minimalChildEnv, ...pass.filter((entry) => entry.includes("*"))].map(globToRegExp);
  const minimalNames = new Set(minimalChildEnv.filter((entry) => !entry.includes("*")));
  const secret = options.secret ?? [];
  const isSecret = (name: string): boolean =>
    secret.some((rule) => (typeof rule === "string" ? rule === name : rule.test(name)));
  const env: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(options.base)) {
    if (value === undefined || name.startsWith("DC_CTX_")) continue;
    const named = exact.has(name);
    const matched = minimalNames.has(name) || globs.some((glob) => glob.test(name));
    if (named || (matched && !isSecret(name))) env[name] = value;
    else withheld.push(name);
  }
  return { env, withheld: withheld.sort() };
}
