import type { z } from "zod";
import type { Logger } from "../logger/logger.js";

/** What an action handler receives besides its validated input. */
export interface ServiceActionContext {
  logger: Logger;
  /** The chat context the call was made from (CLI inside an agent shell, or an agent tool), if any. */
  contextId?: string;
}

/** One action of a service: a zod input schema and a handler; exposed over HTTP, CLI and to the agent. */
export interface ServiceAction<Input extends z.ZodType = z.ZodType, Output = unknown> {
  description?: string;
  input: Input;
  handler: (input: z.output<Input>, context: ServiceActionContext) => Promise<Output> | Output;
}

/** A long-lived part of the runtime with named actions and an optional lifecycle. */
export interface ServiceDefinition {
  name: string;
  description?: string;
  // biome-ignore lint/suspicious/noExplicitAny: each action keeps its own schema type
  actions: Record<string, ServiceAction<any, unknown>>;
  start?: () => Promise<void> | void;
  stop?: () => Promise<void> | void;
  status?: () => Promise<ServiceStatusDetail> | ServiceStatusDetail;
}

/** Extra status a service reports about itself. */
export type ServiceStatusDetail = Record<string, unknown>;

/** Declares a service; each action's handler input is typed from its own zod schema. */
export function defineService<const Schemas extends Record<string, z.ZodType>>(definition: {
  name: string;
  description?: string;
  actions: {
    [Name in keyof Schemas]: {
      description?: string;
      input: Schemas[Name];
      handler: (input: z.output<Schemas[Name]>, context: ServiceActionContext) => Promise<unknown> | unknown;
    };
  };
  start?: () => Promise<void> | void;
  stop?: () => Promise<void> | void;
  status?: () => Promise<ServiceStatusDetail> | ServiceStatusDetail;
}): ServiceDefinition {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name)) {
    throw new TypeError(`service name "${definition.name}" must match ^[a-z][a-z0-9-]*$`);
  }
  return definition as ServiceDefinition;
}
