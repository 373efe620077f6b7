import { DowncityError, errorFields, type Logger } from "@downcity/core";
import type { FastifyError, FastifyInstance } from "fastify";
import { httpStatusFor } from "./http-status.js";

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

// Fastify's own client errors (bad JSON, wrong content type, body too large) keep their 4xx status.
function fromFastifyError(error: FastifyError): { status: number; body: ErrorBody } | undefined {
  const status = error.statusCode;
  if (!status || status >= 500) return undefined;
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return {
      status: 413,
      body: {
        error: {
          code: "INVALID_INPUT",
          message: "The request body is larger than the 1 MiB limit",
          field: "body",
        },
      },
    };
  }
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return {
      status: 415,
      body: {
        error: { code: "INVALID_INPUT", message: "Send the body as application/json", field: "content-type" },
      },
    };
  }
  return { status, body: { error: { code: "INVALID_INPUT", message: error.message, field: "body" } } };
}

/** Maps every thrown error to `{ error: { code, message, field? } }` with the status of its code; logs 5xx. */
export function registerErrorHandler(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error, request, reply) => {
    let status: number;
    let body: ErrorBody;
    if (DowncityError.isInstance(error)) {
      status = httpStatusFor(error.code);
      body = { error: error.toJSON() };
    } else {
      const mapped = fromFastifyError(error as FastifyError);
      if (mapped) {
        status = mapped.status;
        body = mapped.body;
      } else {
        status = 500;
        body = { error: { code: "INTERNAL", message: "Internal error; see the daemon log" } };
      }
    }
    if (status >= 500) {
      logger.error(
        { method: request.method, route: request.routeOptions.url, status, ...errorFields(error) },
        "request failed",
      );
    }
    reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({
      error: { code: "NOT_FOUND", message: `No route ${request.method} ${request.url.split("?")[0]}` },
    });
  });
}
