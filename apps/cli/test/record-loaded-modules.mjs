// Preload (`node --import ./record-loaded-modules.mjs`): appends the URL of every module the process
// resolves, one per line, to the file named by DOWNCITY_RECORD_MODULES. The hooks run on Node's
// loader thread, so they write synchronously: a module resolved just before process.exit still counts.
import { register } from "node:module";

register("./record-loaded-modules-hooks.mjs", import.meta.url, {
  data: { file: process.env.DOWNCITY_RECORD_MODULES },
});
