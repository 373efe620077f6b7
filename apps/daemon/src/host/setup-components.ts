import { errorFields, type Logger } from "@downcity/core";
import type { Component } from "./define-component.js";

/** The components of a host, set up: their parts, the order they came up in, and one shutdown. */
export interface ComponentHost<Parts> {
  readonly parts: Parts;
  /** Component names in set-up order (`close` walks it backwards). */
  readonly order: readonly (keyof Parts)[];
  /** Closes every component in the reverse of set-up order; a failing close is logged and the rest go on. */
  close(): Promise<void>;
}

/**
 * Orders `components` so each comes after everything it depends on (declaration order breaks ties)
 * and names the problem when a dependency is missing or two depend on each other.
 */
export function orderComponents<Parts>(
  components: readonly Component<Parts>[],
  given: readonly (keyof Parts)[],
): Component<Parts>[] {
  const byName = new Map(components.map((component) => [component.name, component]));
  const ordered: Component<Parts>[] = [];
  const done = new Set<keyof Parts>(given);
  const visiting: (keyof Parts)[] = [];
  const visit = (component: Component<Parts>) => {
    if (done.has(component.name)) return;
    if (visiting.includes(component.name))
      throw new TypeError(
        `components depend on each other: ${[...visiting, component.name].map(String).join(" -> ")}`,
      );
    visiting.push(component.name);
    for (const need of component.dependsOn) {
      const dependency = byName.get(need);
      if (!dependency && !done.has(need))
        throw new TypeError(
          `component "${String(component.name)}" depends on "${String(need)}", which nothing provides`,
        );
      if (dependency) visit(dependency);
    }
    visiting.pop();
    done.add(component.name);
    ordered.push(component);
  };
  for (const component of components) visit(component);
  return ordered;
}

/**
 * Sets up `components` in dependency order, each with only the parts it declared. When one fails,
 * those already set up are closed in reverse order and the error is rethrown.
 */
export async function setupComponents<Parts, Given extends keyof Parts>(options: {
  given: Pick<Parts, Given>;
  components: readonly Component<Parts>[];
  logger: Logger;
}): Promise<ComponentHost<Parts>> {
  const parts = { ...options.given } as Partial<Parts>;
  const ordered = orderComponents(options.components, Object.keys(options.given) as (keyof Parts)[]);
  const closes: Array<{ name: keyof Parts; close: () => Promise<void> | void }> = [];
  const order: (keyof Parts)[] = [];
  const close = async () => {
    for (const { name, close: closeOne } of closes.splice(0).reverse()) {
      try {
        await closeOne();
      } catch (error) {
        options.logger.warn({ component: String(name), ...errorFields(error) }, "shutdown step failed");
      }
    }
  };
  for (const component of ordered) {
    const needs = Object.fromEntries(component.dependsOn.map((need) => [need, parts[need]]));
    try {
      const setUp = await component.setup(needs as Pick<Parts, keyof Parts>);
      parts[component.name] = setUp.value;
      order.push(component.name);
      if (setUp.close) closes.push({ name: component.name, close: setUp.close });
    } catch (error) {
      await close();
      throw error;
    }
  }
  return { parts: parts as Parts, order, close };
}
