import pg from "pg";
import { inject } from "vitest";

let databases = 0;

/** Runs `work` on a connection to the test server's `postgres` database, closing it after. */
export async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database `<prefix>_<pid>_<n>` on the test server (see global-setup.ts). */
export async function createTestDatabase(prefix: string): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${process.pid}_${++databases}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  return { name, url: inject("postgresUrl").replace(/\/postgres$/, `/${name}`) };
}

/** Drops a test database, ending the connections still open on it. */
export async function dropTestDatabase(name: string): Promise<void> {
  await asAdmin((client) => client.query(`DROP DATABASE ${name} WITH (FORCE)`));
}
