/** A discovered skill: a directory holding a `SKILL.md` whose front matter names and describes it. */
export interface Skill {
  /** The skill id: the front matter `name`. */
  name: string;
  description: string;
  /** Tools declared by `allowed-tools`, each entry kept whole (`Bash(git *)`); undefined when not declared. */
  allowedTools?: string[];
  /** Absolute path of the skill's directory (its scripts/, references/ and other files live here). */
  dir: string;
  /** Absolute path of its `SKILL.md`. */
  path: string;
  /** The root it was found under. */
  root: string;
  /** Every front matter key, including ones Downcity does not interpret. */
  frontMatter: Record<string, unknown>;
  /** The Markdown after the front matter, as read at discovery time. */
  body: string;
}

/** A skill (or root) that could not be used, with the reason; discovery reports these and carries on. */
export interface SkillProblem {
  path: string;
  reason: string;
}
