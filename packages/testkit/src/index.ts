/**
 * Internal test kit of the Downcity workspace (never published), at the bottom of the package graph: it
 * depends on nothing of ours, so every package's tests may use it. Vitest hooks live in
 * `@downcity/testkit/vitest`.
 */
export { freePort } from "./free-port.js";
export { isAlive } from "./is-alive.js";
export { type NodeRun, type RunNodeOptions, runNode } from "./run-node.js";
export { seededRandom } from "./seeded-random.js";
export {
  postSigned,
  type Received,
  type SignedReceiver,
  type SignedReceiverOptions,
  signatureHeader,
  signBody,
  startSignedReceiver,
} from "./signed-webhook.js";
export { createTempDir, type TempDir } from "./temp-dir.js";
export { scaledMs, testTimeScale } from "./time-scale.js";
export { type UntilCheck, type UntilOptions, until } from "./until.js";
export { type WatchedOutput, watchOutput } from "./watch-output.js";
