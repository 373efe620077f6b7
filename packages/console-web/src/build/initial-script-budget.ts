import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** Sums the gzipped bytes of the entry chunk and the chunks it imports statically. */
export function initialScriptBytes(
  chunks: ReadonlyArray<{ fileName: string; code: string; isEntry: boolean; imports: string[] }>,
): { files: string[]; gzipBytes: number } {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
  const files = [...seen].filter((name) => byName.has(name));
  const gzipBytes = files.reduce((sum, name) => sum + gzipSync(byName.get(name)?.code ?? "").length, 0);
  return { files, gzipBytes };
}

/** A Vite plug-in that fails the build when the page's initial JavaScript exceeds `maxGzipBytes` gzipped. */
export function initialScriptBudget(options: { maxGzipBytes: number }): Plugin {
  return {
    name: "downcity-initial-script-budget",
    apply: "build",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).flatMap((item) =>
        item.type === "chunk"
          ? [{ fileName: item.fileName, code: item.code, isEntry: item.isEntry, imports: item.imports }]
          : [],
      );
      const { files, gzipBytes } = initialScriptBytes(chunks);
      const kib = (gzipBytes / 1024).toFixed(1);
      if (gzipBytes > options.maxGzipBytes) {
        this.error(
          `Initial JavaScript is ${kib} KiB gzipped (${files.join(", ")}), over the ${options.maxGzipBytes / 1024} KiB budget: drop a dependency or load it lazily`,
        );
      }
      this.info(`initial JavaScript ${kib} KiB gzipped (budget ${options.maxGzipBytes / 1024} KiB)`);
    },
  };
}
