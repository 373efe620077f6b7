import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.js";
import type { DaemonConnection } from "../daemon/connect-daemon.js";
import type { ServiceListing } from "../daemon/load-daemon-api.js";
import { printData, renderValue } from "../output/print-data.js";
import { type ActionArgument, actionArguments } from "../schema/action-arguments.js";
import {
  parseIntegerValue,
  parseJsonObjectValue,
  parseJsonValue,
  parseNumberValue,
} from "./parse-option-value.js";

function parserFor(argument: ActionArgument): ((value: string) => unknown) | undefined {
  if (argument.kind === "number") return parseNumberValue;
  if (argument.kind === "integer") return (value) => parseIntegerValue(value);
  if (argument.kind === "json") return parseJsonValue;
  return undefined;
}

/**
 * Adds `downcity <service> <action>` for every service the daemon lists, derived from each
 * action's JSON Schema: required string/number properties are positionals in schema order, the
 * rest `--kebab-case` options; `--json-input` supplies (or overrides) the whole payload.
 * A service whose name is already a built-in command (`chat`) stays reachable via `service command`.
 */
export function registerServiceActionCommands(
  program: Command,
  io: CliIo,
  services: ServiceListing[],
  connection: () => Promise<Pick<DaemonConnection, "client">>,
): void {
  const taken = new Set(program.commands.flatMap((command) => [command.name(), ...command.aliases()]));
  for (const service of services) {
    if (taken.has(service.name) || service.actions.length === 0) continue;
    const group = program
      .command(service.name)
      .description(
        service.description ?? `Actions of the ${service.name} service (derived from its schemas)`,
      );
    for (const action of service.actions) {
      const { positionals, options } = actionArguments(action.inputSchema);
      const command = group
        .command(action.name)
        .description(action.description ?? `${service.name} ${action.name}`);
      for (const positional of positionals) {
        const description = positional.description ?? `${positional.kind} (${positional.property})`;
        const name = positional.optional ? `[${positional.property}]` : `<${positional.property}>`;
        command.argument(name, description, parserFor(positional));
      }
      for (const argument of options) {
        const flags = argument.kind === "boolean" ? `--${argument.flag}` : `--${argument.flag} <value>`;
        const option = new Option(flags, argument.description ?? argument.property);
        if (argument.choices) option.choices(argument.choices);
        const parse = parserFor(argument);
        if (parse) option.argParser(parse);
        command.addOption(option);
      }
      command
        .option(
          "--json-input <json>",
          "the whole input as a JSON object (flags and arguments override it)",
          parseJsonObjectValue,
        )
        .option("--json", "print the result as JSON")
        .action(async (...args: unknown[]) => {
          const self = args[args.length - 1] as Command;
          const values = self.opts<Record<string, unknown>>();
          const payload: Record<string, unknown> = {
            ...((values.jsonInput as Record<string, unknown>) ?? {}),
          };
          positionals.forEach((positional, index) => {
            if (args[index] !== undefined) payload[positional.property] = args[index];
          });
          for (const argument of options) {
            const key = new Option(`--${argument.flag}`).attributeName();
            if (values[key] !== undefined) payload[argument.property] = values[key];
          }
          const { client } = await connection();
          const result = await client.servicesCommand({
            service: service.name,
            action: action.name,
            payload,
          });
          printData(io, result.result, {
            json: values.json === true,
            human: () => renderValue(result.result),
          });
        });
    }
  }
}
