import type { Options } from "tsup";

/**
 * The build every workspace package shares (each `tsup.config.ts` starts from it, as each tsconfig
 * extends `tsconfig.base.json`): ESM for Node 20 with declarations and source maps, `dist` cleaned first.
 * `overrides` adds what one package needs beyond it (a banner, a narrower `dts`).
 */
export function packageBuild(entry: string[] = ["src/index.ts"], overrides: Options = {}): Options {
  return { entry, format: ["esm"], dts: true, clean: true, target: "node20", sourcemap: true, ...overrides };
}
