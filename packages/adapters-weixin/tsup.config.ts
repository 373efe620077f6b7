import { packageBuild } from "../../tsup.preset.ts";

export default packageBuild();
