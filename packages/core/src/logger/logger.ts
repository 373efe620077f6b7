import { currentRequestContext } from "../context/request-context.js";

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The logger contract every package accepts through its options (pino fits it directly). */
export interface Logger {
  debug(fields: LogFields, message?: string): void;
  info(fields: LogFields, message?: string): void;
  warn(fields: LogFields, message?: string): void;
  error(fields: LogFields, message?: string): void;
}

/** A logger that drops everything; the default for embedders that pass none. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

/** Wraps a logger so every line carries the current run's contextId and requestId. */
export function withRequestContext(logger: Logger): Logger {
  const enrich = (fields: LogFields): LogFields => {
    const context = currentRequestContext();
    return context ? { contextId: context.contextId, requestId: context.requestId, ...fields } : fields;
  };
  return {
    debug: (fields, message) => logger.debug(enrich(fields), message),
    info: (fields, message) => logger.info(enrich(fields), message),
    warn: (fields, message) => logger.warn(enrich(fields), message),
    error: (fields, message) => logger.error(enrich(fields), message),
  };
}

/** Serialises an unknown thrown value for a log line. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { err: { name: error.name, message: error.message, ...(code ? { code } : {}) } };
  }
  return { err: { message: String(error) } };
}
