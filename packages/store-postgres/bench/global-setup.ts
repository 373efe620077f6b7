import type { TestProject } from "vitest/node";
import { startTestPostgres } from "../test/postgres-server.js";

/** A durable server (fsync on) for the benchmarks: commits cost what they cost in production. */
export default async function setup(project: TestProject) {
  const server = await startTestPostgres({ durable: true });
  project.provide("postgresUrl", server.url());
  return () => server.stop();
}
