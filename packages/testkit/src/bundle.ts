/** The test kit's bundler for child processes; apart from the main entry because it loads tsup. */
export { bundleFromSource, type SourceBundle } from "./bundle-from-source.js";
