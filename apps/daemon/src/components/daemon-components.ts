import { approvalsComponent } from "../approvals/approvals-component.js";
import type { DaemonParts } from "../host/daemon-parts.js";
import type { Component } from "../host/define-component.js";
import { telemetryComponent } from "../telemetry/telemetry-component.js";
import { channelsComponent } from "./channels-component.js";
import { credentialsComponent } from "./credentials-component.js";
import { httpComponent } from "./http-component.js";
import { intakeComponent } from "./intake-component.js";
import { jobsComponent } from "./jobs-component.js";
import { pluginsComponent } from "./plugins-component.js";
import { retentionComponent } from "./retention-component.js";
import { runsComponent } from "./runs-component.js";
import { runtimeComponent } from "./runtime-component.js";
import { servicesComponent } from "./services-component.js";
import { shellComponent } from "./shell-component.js";
import { storeComponent } from "./store-component.js";
import { usageComponent } from "./usage-component.js";

/**
 * The daemon, as components that declare what they depend on. The host sets them up in dependency
 * order (this list's order breaks ties) and closes them in reverse, which gives the shutdown order:
 * intake, plug-ins, background jobs, runs (drained), HTTP (in-flight replies), services, channels,
 * credentials, retention, shell, telemetry (flushes its spans), usage, runtime, store.
 */
export const daemonComponents: readonly Component<DaemonParts>[] = [
  storeComponent,
  runtimeComponent,
  usageComponent,
  telemetryComponent,
  shellComponent,
  retentionComponent,
  credentialsComponent,
  approvalsComponent,
  channelsComponent,
  servicesComponent,
  httpComponent,
  runsComponent,
  jobsComponent,
  pluginsComponent,
  intakeComponent,
];
