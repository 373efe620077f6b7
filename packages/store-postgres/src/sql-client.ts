/**
 * The one method the exported helpers need from a connection: any `pg` Client, Pool client or
 * compatible driver fits, and the published types do not depend on `@types/pg`.
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}
