import { z } from "zod";
import { DowncityError } from "../errors/downcity-error.js";
import { issuePath } from "../errors/zod-issue-message.js";
import type { PluginSetup } from "./define-plugin.js";

const aFunction = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
  error: "expected a function",
});
const anArray = <Item extends z.ZodType>(item: Item) => z.array(item, { error: "expected an array" });

/** The shape `setup` must return (see `PluginSetup`); checked because plug-ins are loaded from files the compiler never saw. */
const pluginSetupSchema = z.object(
  {
    services: anArray(
      z.looseObject({
        name: z.string({ error: "expected a service name" }),
        actions: z.record(z.string(), z.unknown(), { error: "expected an object of actions" }),
      }),
    ).optional(),
    tools: anArray(
      z.union([aFunction, z.record(z.string(), z.unknown())], {
        error: "expected a tool set or a function returning one",
      }),
    ).optional(),
    promptProviders: anArray(
      z.looseObject({
        id: z.string({ error: "expected a provider id" }),
        order: z.number({ error: "expected a number" }),
        provide: aFunction,
      }),
    ).optional(),
    historyDir: aFunction.optional(),
    close: aFunction.optional(),
  },
  { error: "expected an object (services, tools, promptProviders, historyDir, close)" },
);

/**
 * Checks what a plug-in's `setup` returned; a wrong shape becomes a PLUGIN_FAILED error naming the
 * field (`tools: expected an array`), so the host reports that plug-in instead of crashing on it.
 */
export function parsePluginSetup(pluginName: string, value: unknown): PluginSetup {
  const parsed = pluginSetupSchema.safeParse(value);
  if (parsed.success) return value as PluginSetup;
  const issue = parsed.error.issues[0];
  const field = issue ? issuePath(issue) : "(root)";
  const problems = parsed.error.issues.map((each) => `${issuePath(each)}: ${each.message}`).join("; ");
  throw new DowncityError(
    "PLUGIN_FAILED",
    `Plug-in "${pluginName}" returned a setup of the wrong shape: ${problems}. See PluginSetup in @downcity/core.`,
    { field },
  );
}
