import { Argument, type Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import type { ServiceListing } from "../daemon/load-daemon-api.js";
import { printData, renderValue } from "../output/print-data.js";
import { parseJsonObjectValue } from "./parse-option-value.js";

type DirOptions = { dir?: string; json?: boolean };

/** Normalises `servicesList()`'s answer, which is either the array or `{ services }`. */
export function serviceListings(result: unknown): ServiceListing[] {
  if (Array.isArray(result)) return result as ServiceListing[];
  const services = (result as { services?: unknown } | undefined)?.services;
  return Array.isArray(services) ? (services as ServiceListing[]) : [];
}

/** `downcity service list|control|command`: the daemon's services, their lifecycle and their actions. */
export function registerServiceCommand(program: Command, io: CliIo): void {
  const service = program
    .command("service")
    .description("List, control and invoke the daemon's services")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)");

  service
    .command("list")
    .description("List services, their state and their actions")
    .option("--json", "print the services (with each action's JSON Schema) as JSON")
    .action(async (options: DirOptions, command: Command) => {
      const merged = { ...command.parent?.opts<DirOptions>(), ...options };
      const { client } = await connectDaemon(io, { dir: merged.dir });
      const services = serviceListings(await client.servicesList());
      printData(io, services, {
        json: merged.json,
        human: () =>
          services
            .map(
              (entry) =>
                `${entry.name.padEnd(12)} ${(entry.state ?? "").padEnd(9)} ${entry.actions.map((action) => action.name).join(", ")}${entry.error ? `  (error: ${entry.error})` : ""}`,
            )
            .join("\n") || "No services.",
      });
    });

  service
    .command("control")
    .description("Start, stop, restart or query one service")
    .argument("<service>", "service name (see `downcity service list`)")
    .addArgument(new Argument("<action>", "what to do").choices(["start", "stop", "restart", "status"]))
    .option("--json", "print the result as JSON")
    .action(async (name: string, action: string, options: DirOptions, command: Command) => {
      const merged = { ...command.parent?.opts<DirOptions>(), ...options };
      const { client } = await connectDaemon(io, { dir: merged.dir });
      const result = await client.servicesControl({
        service: name,
        action: action as "start" | "stop" | "restart" | "status",
      });
      printData(io, result, {
        json: merged.json,
        human: () => {
          const record = (result ?? {}) as { name?: string; state?: string; error?: string };
          return record.state
            ? `${record.name ?? name}: ${record.state}${record.error ? ` (error: ${record.error})` : ""}`
            : renderValue(result);
        },
      });
    });

  service
    .command("command")
    .description("Invoke one service action with a JSON payload")
    .argument("<service>", "service name")
    .argument("<action>", "action name")
    .option("--json-input <json>", "the action's input as a JSON object", parseJsonObjectValue)
    .option("--json", "print the result as JSON")
    .action(
      async (
        name: string,
        action: string,
        options: DirOptions & { jsonInput?: Record<string, unknown> },
        command: Command,
      ) => {
        const merged = { ...command.parent?.opts<DirOptions>(), ...options };
        const { client } = await connectDaemon(io, { dir: merged.dir });
        const result = await client.servicesCommand({
          service: name,
          action,
          payload: options.jsonInput ?? {},
        });
        printData(io, result.result, { json: merged.json, human: () => renderValue(result.result) });
      },
    );
}
