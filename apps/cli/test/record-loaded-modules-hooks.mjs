// Module resolution hooks of record-loaded-modules.mjs: every resolved URL goes to `file`.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
