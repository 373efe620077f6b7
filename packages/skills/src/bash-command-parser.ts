import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Language, type Node, Parser } from "web-tree-sitter";

/** One simple command of a command line: its words, literal where the shell would see them literally. */
export interface SimpleCommand {
  /** The program name followed by the arguments; a computed word (`$X`, `$(…)`) keeps its source text. */
  words: string[];
  /** The command's source text. */
  text: string;
}

/** A command line split into every simple command it would run, plus what makes it uncheckable. */
export interface ParsedCommandLine {
  commands: SimpleCommand[];
  /** Constructs that cannot be checked against patterns (syntax errors, functions, assignments, computed program names). */
  problems: string[];
}

/** Parses bash command lines with tree-sitter-bash; the grammar loads on first use. */
export interface BashCommandParser {
  parse(source: string): Promise<ParsedCommandLine>;
}

const unescapeUnquoted = (text: string): string => text.replace(/\\(.)/gs, "$1");
const unescapeDoubleQuoted = (text: string): string => text.replace(/\\([$`"\\\n])/g, "$1");

// The word as the shell would pass it, or undefined when it depends on expansion at run time.
function literalValue(node: Node): string | undefined {
  switch (node.type) {
    case "word":
    case "number":
      return unescapeUnquoted(node.text);
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      const parts = node.namedChildren.filter((child): child is Node => child !== null);
      if (parts.some((child) => child.type !== "string_content")) return undefined;
      return unescapeDoubleQuoted(node.text.slice(1, -1));
    }
    case "concatenation": {
      let value = "";
      for (const child of node.children) {
        if (!child) continue;
        const part = literalValue(child);
        if (part === undefined) return undefined;
        value += part;
      }
      return value;
    }
    default:
      return undefined;
  }
}

function describe(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function collect(node: Node, found: ParsedCommandLine): void {
  switch (node.type) {
    case "ERROR":
      found.problems.push(`it does not parse as bash near "${describe(node.text)}"`);
      break;
    case "function_definition":
      // A function can shadow an allowed program name (`git() { rm -rf /; }; git status`).
      found.problems.push(`it defines a shell function ("${describe(node.text)}")`);
      break;
    case "variable_assignment":
      // Assignments can redirect what an allowed program runs (PATH=, GIT_SSH_COMMAND=, LD_PRELOAD=).
      found.problems.push(`it sets a variable ("${describe(node.text)}")`);
      break;
    case "command": {
      const nameNode = node.childForFieldName("name");
      const wordNode = nameNode?.namedChildren[0] ?? nameNode;
      const name = wordNode ? literalValue(wordNode) : undefined;
      if (name === undefined) {
        found.problems.push(
          `its program name is computed at run time ("${describe(nameNode?.text ?? node.text)}")`,
        );
      } else {
        const args = node
          .childrenForFieldName("argument")
          .map((argument) => literalValue(argument) ?? argument.text);
        found.commands.push({ words: [name, ...args], text: node.text });
      }
      break;
    }
    case "file_redirect": {
      // Bash itself opens /dev/tcp and /dev/udp paths as sockets: a redirection can be a network channel.
      for (const target of node.childrenForFieldName("destination")) {
        const path = literalValue(target);
        if (path === undefined)
          found.problems.push(`a redirection target is computed at run time ("${describe(node.text)}")`);
        else if (/^\/dev\/(tcp|udp)\//.test(path))
          found.problems.push(`it opens a network connection through ${path}`);
      }
      break;
    }
    case "declaration_command":
    case "unset_command": {
      const keyword = node.children[0]?.text ?? node.type;
      const rest = node.namedChildren
        .filter((child): child is Node => child !== null)
        .map((child) => literalValue(child) ?? child.text);
      found.commands.push({ words: [keyword, ...rest], text: node.text });
      break;
    }
  }
  if (node.isMissing) found.problems.push(`it is incomplete (missing "${node.type}")`);
  // Every child is visited: $(…), backticks, <(…), here-documents and subshells hold commands too.
  for (const child of node.children) if (child) collect(child, found);
}

/** Creates a bash parser over tree-sitter-bash's WebAssembly grammar (vendored in `grammar/`; loaded once, on first parse). */
export function createBashCommandParser(): BashCommandParser {
  let ready: Promise<Parser> | undefined;
  const load = async (): Promise<Parser> => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    // Resolved through the package name, so it is found from a bundle that inlined this module too.
    const language = await Language.load(
      await readFile(require.resolve("@downcity/skills/grammar/tree-sitter-bash.wasm")),
    );
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  };
  return {
    async parse(source) {
      ready ??= load();
      const parser = await ready;
      const tree = parser.parse(source);
      if (!tree) return { commands: [], problems: ["it could not be parsed"] };
      try {
        const found: ParsedCommandLine = { commands: [], problems: [] };
        collect(tree.rootNode, found);
        if (tree.rootNode.hasError && found.problems.length === 0)
          found.problems.push("it does not parse as bash");
        return found;
      } finally {
        tree.delete();
      }
    },
  };
}
