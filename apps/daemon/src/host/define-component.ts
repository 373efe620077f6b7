/** What a component's `setup` hands back: the value other components receive, and how to release it. */
export interface SetUp<Value> {
  value: Value;
  /** Called on shutdown, in the reverse of set-up order, so nothing closes before what depends on it. */
  close?: () => Promise<void> | void;
}

/**
 * One part of a host (fastify's plug-in shape): it provides the part named `name`, receives only the
 * parts it declares in `dependsOn`, and is set up after them and closed before them.
 */
export interface Component<
  Parts,
  Name extends keyof Parts = keyof Parts,
  Needs extends keyof Parts = keyof Parts,
> {
  readonly name: Name;
  readonly dependsOn: readonly Needs[];
  setup(parts: Pick<Parts, Needs>): Promise<SetUp<Parts[Name]>> | SetUp<Parts[Name]>;
}

/** Declares a component of the host whose parts are `Parts`; `setup` sees exactly the parts named in `dependsOn`. */
export function componentOf<Parts>() {
  return <Name extends keyof Parts, Needs extends keyof Parts>(
    component: Component<Parts, Name, Needs>,
  ): Component<Parts, Name, Needs> => component;
}
