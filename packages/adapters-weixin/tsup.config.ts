import { packageBuild } from "../../tsup.preset.ts";

export default packageBuild(["src/index.ts", "src/test/index.ts"]);
