import { afterAll, beforeAll } from "vitest";
import { startDemoModel, stopDaemon } from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

type TempWorld = Awaited<ReturnType<typeof createTempWorld>>;
type DemoModel = Awaited<ReturnType<typeof startDemoModel>>;

/**
 * Hooks for tests that run a real detached daemon against the offline demo model: a throwaway world
 * and the model before the tests; afterwards the project's daemon stopped, the model closed and the
 * world removed. `world` and `demo` are valid inside the tests.
 */
export function useDemoWorld(prefix?: string): { readonly world: TempWorld; readonly demo: DemoModel } {
  let world: TempWorld | undefined;
  let demo: DemoModel | undefined;
  beforeAll(async () => {
    world = await createTempWorld(prefix);
    demo = await startDemoModel();
  });
  afterAll(async () => {
    if (world) await stopDaemon({ rootDir: world.project(), graceMs: 2000 }).catch(() => {});
    await demo?.close();
    await world?.cleanup();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the demo world exists only while its tests run");
    return value;
  };
  return {
    get world() {
      return ready(world);
    },
    get demo() {
      return ready(demo);
    },
  };
}
