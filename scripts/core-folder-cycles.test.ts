import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

// The folders of packages/core/src are its layers (store contracts, channel, run, prompt, plugin...):
// an import between two folders, type-only ones included, must never close a loop, so each layer
// can be read, tested and replaced knowing only the layers below it.
const src = join(import.meta.dirname, "..", "packages", "core", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The folder a file sits in (`store`, `store/file`, `channel/adapter`); undefined for the entry files. */
const folderOf = (file: string): string | undefined => {
  const folder = relative(src, dirname(file)).split(sep).join("/");
  return folder === "" ? undefined : folder;
};

/** Folder -> folder -> one import that makes the edge ("file imports path"), for the message. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(src)) {
    const from = folderOf(file);
    if (!from) continue;
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s+["'](\.[^"']+)["']/g)) {
      const target = resolve(dirname(file), match[1] as string);
      const to = folderOf(target);
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${relative(src, file)} imports ${match[1]}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (stack.includes(to))
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("packages/core/src folders", () => {
  it("import each other without a cycle", () => {
    const graph = folderGraph();
    expect(graph.size, "no folder imports found: is the path right?").toBeGreaterThan(5);
    const explained = cycles(graph).map((component) =>
      component.flatMap((from) =>
        [...(graph.get(from) ?? [])].filter(([to]) => component.includes(to)).map(([, edge]) => edge),
      ),
    );
    expect(explained, "these imports close a loop between folders of core").toEqual([]);
  });
});
