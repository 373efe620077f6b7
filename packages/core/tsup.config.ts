import { packageBuild } from "../../tsup.preset.ts";

export default packageBuild([
  "src/index.ts",
  "src/test.ts",
  "src/primitives.ts",
  "src/scripted.ts",
  "src/usage.ts",
  "src/internal.ts",
]);
