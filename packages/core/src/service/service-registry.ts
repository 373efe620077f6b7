import { z } from "zod";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFromZod } from "../errors/zod-issue-message.js";
import { type Logger, silentLogger } from "../logger/logger.js";
import type { ServiceDefinition, ServiceStatusDetail } from "./define-service.js";

/** Lifecycle state of a registered service. */
export type ServiceState = "stopped" | "starting" | "running" | "stopping" | "error";

/** A row of `list()`: a service, its state and its actions with their JSON Schemas. */
export interface ServiceSummary {
  name: string;
  description?: string;
  state: ServiceState;
  error?: string;
  actions: Array<{ name: string; description?: string; inputSchema: unknown }>;
}

/** The control verbs shared by HTTP `/api/services/control` and `downcity service control`. */
export type ServiceControlAction = "start" | "stop" | "restart" | "status";

/** Holds services, validates action input and invokes handlers: one definition, three surfaces. */
export interface ServiceRegistry {
  register(service: ServiceDefinition): void;
  get(name: string): ServiceDefinition | undefined;
  list(): ServiceSummary[];
  control(
    name: string,
    action: ServiceControlAction,
  ): Promise<{ name: string; state: ServiceState; detail?: ServiceStatusDetail; error?: string }>;
  invoke(name: string, action: string, payload: unknown, options?: { contextId?: string }): Promise<unknown>;
  startAll(): Promise<void>;
  stopAll(): Promise<void>;
}

/** Creates an empty service registry. */
export function createServiceRegistry(options: { logger?: Logger } = {}): ServiceRegistry {
  const logger = options.logger ?? silentLogger;
  const services = new Map<string, { definition: ServiceDefinition; state: ServiceState; error?: string }>();

  const require = (name: string) => {
    const entry = services.get(name);
    if (!entry) {
      const known = [...services.keys()].join(", ") || "none";
      throw new DowncityError(
        "SERVICE_NOT_FOUND",
        `Unknown service "${name}". Registered services: ${known}`,
        {
          field: "service",
        },
      );
    }
    return entry;
  };

  const start = async (name: string) => {
    const entry = require(name);
    if (entry.state === "running") return;
    entry.state = "starting";
    try {
      await entry.definition.start?.();
      entry.state = "running";
      delete entry.error;
    } catch (error) {
      entry.state = "error";
      entry.error = error instanceof Error ? error.message : String(error);
      throw new DowncityError("SERVICE_ERROR", `Service "${name}" failed to start: ${entry.error}`, {
        cause: error,
      });
    }
  };

  const stop = async (name: string) => {
    const entry = require(name);
    if (entry.state === "stopped") return;
    entry.state = "stopping";
    try {
      await entry.definition.stop?.();
      entry.state = "stopped";
    } catch (error) {
      entry.state = "error";
      entry.error = error instanceof Error ? error.message : String(error);
      throw new DowncityError("SERVICE_ERROR", `Service "${name}" failed to stop: ${entry.error}`, {
        cause: error,
      });
    }
  };

  return {
    register(service) {
      if (services.has(service.name)) {
        throw new DowncityError("CONFLICT", `Service "${service.name}" is already registered`, {
          field: "name",
        });
      }
      services.set(service.name, { definition: service, state: "stopped" });
    },
    get: (name) => services.get(name)?.definition,
    list() {
      return [...services.values()].map(({ definition, state, error }) => ({
        name: definition.name,
        ...(definition.description ? { description: definition.description } : {}),
        state,
        ...(error ? { error } : {}),
        actions: Object.entries(definition.actions).map(([name, action]) => ({
          name,
          ...(action.description ? { description: action.description } : {}),
          inputSchema: z.toJSONSchema(action.input, { io: "input", unrepresentable: "any" }),
        })),
      }));
    },
    async control(name, action) {
      const entry = require(name);
      if (action === "start") await start(name);
      else if (action === "stop") await stop(name);
      else if (action === "restart") {
        await stop(name);
        await start(name);
      } else if (action !== "status") {
        throw new DowncityError(
          "INVALID_INPUT",
          `action must be start, stop, restart or status, not "${action}"`,
          {
            field: "action",
          },
        );
      }
      const detail = await entry.definition.status?.();
      return {
        name,
        state: entry.state,
        ...(detail ? { detail } : {}),
        ...(entry.error ? { error: entry.error } : {}),
      };
    },
    async invoke(name, actionName, payload, invokeOptions = {}) {
      const { definition } = require(name);
      const action = definition.actions[actionName];
      if (!action) {
        throw new DowncityError(
          "ACTION_NOT_FOUND",
          `Service "${name}" has no action "${actionName}". Actions: ${Object.keys(definition.actions).join(", ")}`,
          { field: "action" },
        );
      }
      const parsed = action.input.safeParse(payload ?? {});
      if (!parsed.success) {
        throw errorFromZod(parsed.error, { what: `payload for ${name}.${actionName}`, prefix: "payload" });
      }
      return action.handler(parsed.data, {
        logger,
        ...(invokeOptions.contextId ? { contextId: invokeOptions.contextId } : {}),
      });
    },
    async startAll() {
      for (const name of services.keys()) await start(name);
    },
    async stopAll() {
      for (const name of [...services.keys()].reverse()) {
        try {
          await stop(name);
        } catch (error) {
          logger.error({ service: name, err: String(error) }, "service stop failed");
        }
      }
    },
  };
}
