import { DowncityError } from "@downcity/core";
import { migrations } from "./migrations.js";
import type { SqlClient } from "./sql-client.js";

/** Every table the migrations create, read from their SQL so a new migration's tables are checked too. */
export const storeTables: readonly string[] = migrations.flatMap((migration) =>
  [...migration.sql.matchAll(/CREATE TABLE (\w+)/g)].map((match) => match[1] as string),
);
const tables = storeTables;

/**
 * Fails with the privilege to grant when the database user cannot create the store's tables
 * (first start) or read and write them (later starts), before any migration runs.
 */
export async function checkPrivileges(client: SqlClient): Promise<void> {
  const { rows } = await client.query<{
    user: string;
    schema: string | null;
    usage: boolean;
    create: boolean;
  }>(
    `SELECT current_user AS user, current_schema() AS schema,
            coalesce(has_schema_privilege(current_schema(), 'USAGE'), false) AS usage,
            coalesce(has_schema_privilege(current_schema(), 'CREATE'), false) AS create`,
  );
  const { user, schema, usage, create } = rows[0] as (typeof rows)[0];
  if (!schema)
    throw new DowncityError(
      "CONFIG_INVALID",
      `store: user "${user}" has no schema to work in (search_path is empty or names no existing schema). Create one it owns, or run GRANT USAGE, CREATE ON SCHEMA public TO "${user}".`,
      { field: "store.url" },
    );
  if (!usage)
    throw new DowncityError(
      "CONFIG_INVALID",
      `store: user "${user}" lacks the USAGE privilege on schema "${schema}". Run GRANT USAGE ON SCHEMA "${schema}" TO "${user}".`,
      { field: "store.url" },
    );
  const existing = await client.query<{ name: string }>(
    // pg_class, not information_schema: the latter hides tables the user has no rights on.
    "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ANY($1)",
    [[...tables, "downcity_migrations"]],
  );
  const present = new Set(existing.rows.map((row) => row.name));
  if (tables.some((table) => !present.has(table)) && !create)
    throw new DowncityError(
      "CONFIG_INVALID",
      `store: user "${user}" lacks the CREATE privilege on schema "${schema}", needed to create the store's tables at the first start or an upgrade that adds tables (missing: ${tables.filter((table) => !present.has(table)).join(", ")}). Run GRANT CREATE ON SCHEMA "${schema}" TO "${user}" (or run that start as the schema's owner).`,
      { field: "store.url" },
    );
  for (const table of tables.filter((name) => present.has(name))) {
    const { rows: grants } = await client.query<{ ok: boolean }>(
      "SELECT has_table_privilege($1, 'SELECT, INSERT, UPDATE, DELETE') AS ok",
      [table],
    );
    if (!grants[0]?.ok)
      throw new DowncityError(
        "CONFIG_INVALID",
        `store: user "${user}" lacks SELECT, INSERT, UPDATE or DELETE on table "${table}". Run GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO "${user}".`,
        { field: "store.url" },
      );
  }
}
