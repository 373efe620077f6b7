/** The kind of value a derived argument or option carries. */
export type ArgumentKind = "string" | "number" | "integer" | "boolean" | "json";

/** One schema property exposed as a positional argument or a `--kebab-case` option. */
export interface ActionArgument {
  /** The property name in the action payload (`shell_id`). */
  property: string;
  /** The option flag without dashes (`shell-id`); unused for positionals. */
  flag: string;
  kind: ArgumentKind;
  description?: string;
  choices?: string[];
  /** A positional that may be left out (`[key]`): marked `x-positional` in its schema. */
  optional?: boolean;
}

/** How one service action maps onto a command line: required scalars first, in schema order. */
export interface ActionArguments {
  positionals: ActionArgument[];
  options: ActionArgument[];
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  /** Set (with zod's `.meta({ "x-positional": true })`) on an optional property given as an argument. */
  "x-positional"?: boolean;
};

/** Option names the CLI itself uses on every derived command; such properties go through `--json-input`. */
const reservedFlags = new Set(["json", "json-input", "help", "dir"]);

/** `shell_id` -> `shell-id`, `maxBytes` -> `max-bytes`. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/[_\s]+/g, "-")
    .toLowerCase();
}

function kindOf(schema: JsonSchema): { kind: ArgumentKind; choices?: string[] } {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const concrete = variants.filter((variant) => variant.type !== "null");
    if (concrete.length === 1 && concrete[0]) return kindOf(concrete[0]);
    return { kind: "json" };
  }
  if (Array.isArray(schema.enum) && schema.enum.every((value) => typeof value === "string")) {
    return { kind: "string", choices: schema.enum as string[] };
  }
  if (typeof schema.const === "string") return { kind: "string", choices: [schema.const] };
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== "null");
  const type = types.length === 1 ? types[0] : undefined;
  if (type === "string" || type === "number" || type === "integer" || type === "boolean")
    return { kind: type };
  return { kind: "json" };
}

/**
 * Derives command-line arguments from an action's JSON Schema: required string and number
 * properties become positionals in schema order, everything else `--kebab-case` options.
 */
export function actionArguments(inputSchema: unknown): ActionArguments {
  const schema = (typeof inputSchema === "object" && inputSchema !== null ? inputSchema : {}) as JsonSchema;
  const required = new Set(schema.required ?? []);
  const positionals: ActionArgument[] = [];
  const options: ActionArgument[] = [];
  for (const [property, propertySchema] of Object.entries(schema.properties ?? {})) {
    const { kind, choices } = kindOf(propertySchema);
    const flag = kebabCase(property);
    const argument: ActionArgument = {
      property,
      flag,
      kind,
      ...(propertySchema.description ? { description: propertySchema.description } : {}),
      ...(choices ? { choices } : {}),
    };
    const scalar = kind === "string" || kind === "number" || kind === "integer";
    if (scalar && required.has(property)) {
      positionals.push(argument);
    } else if (scalar && propertySchema["x-positional"] === true) {
      positionals.push({ ...argument, optional: true });
    } else if (!reservedFlags.has(flag)) {
      options.push(argument);
    }
  }
  return { positionals, options };
}
