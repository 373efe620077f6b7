import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./postgres-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** One PostgreSQL server for the whole run; each test creates its own database on it. */
export default async function setup(project: TestProject) {
  const server = await startTestPostgres();
  project.provide("postgresUrl", server.url());
  return () => server.stop();
}
