import { packageBuild } from "../../tsup.preset.ts";

export default packageBuild(["src/index.ts", "src/main.ts"], { banner: { js: "#!/usr/bin/env node" } });
