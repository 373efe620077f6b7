import { afterAll, beforeAll } from "vitest";
import { createDaemonProject, type DaemonProject, type DaemonProjectConfig } from "./daemon-project.js";
import { type EchoModel, startEchoModel } from "./echo-model.js";

/** Options of `useDaemonTest`. */
export interface DaemonTestOptions<Fake extends { close(): Promise<void> }> {
  /** Goes into the temp folder names. */
  name: string;
  /** Starts the platform's fake. */
  startFake(): Promise<Fake>;
  /** The model's first call whose user text contains this waits for `model.release()`. */
  hold?: string;
  /** The `channels` section pointing at `fake`, the `.env` holding the secrets it names, other settings. */
  configure(
    fake: Fake,
  ): Omit<DaemonProjectConfig, "modelUrl"> | Promise<Omit<DaemonProjectConfig, "modelUrl">>;
}

/** What the tests of a `describe` using `useDaemonTest` reach, once its `beforeAll` ran. */
export interface DaemonTest<Fake> {
  readonly project: DaemonProject;
  readonly fake: Fake;
  readonly model: EchoModel;
}

/**
 * Registers vitest hooks around the enclosing `describe`: before its tests, a fresh project whose
 * channels point at a started fake platform and whose model is an echo model, then `downcity start`
 * (the built CLI and a real daemon, loading the adapters from their install); after them, the model
 * released, the daemon stopped, the folders removed, the model and the fake closed.
 */
export function useDaemonTest<Fake extends { close(): Promise<void> }>(
  options: DaemonTestOptions<Fake>,
): DaemonTest<Fake> {
  let project: DaemonProject | undefined;
  let fake: Fake | undefined;
  let model: EchoModel | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the daemon test is reached before its beforeAll ran");
    return value;
  };

  beforeAll(async () => {
    project = await createDaemonProject(options.name);
    fake = await options.startFake();
    model = await startEchoModel({ hold: options.hold });
    await project.init({ modelUrl: model.url, ...(await options.configure(fake)) });
    await project.json(["start", "--json"]);
  }, 240_000);

  afterAll(async () => {
    model?.release();
    await project?.dispose();
    await model?.close();
    await fake?.close();
  });

  return {
    get project() {
      return started(project);
    },
    get fake() {
      return started(fake);
    },
    get model() {
      return started(model);
    },
  };
}
