import type { LlmConfig } from "@downcity/core";
import { daemonStatus } from "@downcity/daemon/status";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import type { DoctorCheck } from "./doctor-command.js";

/** What `doctor` learns from the project's configuration, checked exactly as the daemon checks it. */
export interface ProjectConfigChecks {
  /** The `config` line: every problem of the file, its sections, channels, plug-ins and ports. */
  config: DoctorCheck;
  /** A `model` failure known without asking the provider (no API key anywhere), if any. */
  model?: DoctorCheck;
  /** True when the file loads, so the checks that read it can run. */
  loads: boolean;
  llm?: LlmConfig;
  channels: string[];
  shellSection?: unknown;
  env: Record<string, string | undefined>;
}

/**
 * Runs the daemon's own validator (`validateProjectConfig`) for `doctor`: what it reports fails here
 * as it would fail `start` or `restart`. Ports are probed only while no daemon of the project runs
 * (a running daemon holds its own).
 */
export async function checkProjectConfig(io: CliIo, rootDir: string): Promise<ProjectConfigChecks> {
  const api = await loadDaemonApi();
  const running = (await daemonStatus({ rootDir })).running;
  const report = await api.validateProjectConfig({ rootDir, env: io.env, checkPorts: !running });
  const configProblems = report.problems.filter((problem) => problem.kind !== "model");
  const modelProblems = report.problems.filter((problem) => problem.kind === "model");
  const notFound =
    !report.config && configProblems.some((problem) => problem.message.includes("downcity init"));
  const config: DoctorCheck =
    configProblems.length === 0
      ? { name: "config", status: "ok", detail: `${rootDir}/downcity.json is valid` }
      : {
          name: "config",
          status: "fail",
          detail: `${configProblems.length === 1 ? "one problem" : `${configProblems.length} problems`}:\n${api.describeProblems(configProblems)}`,
          fix: notFound
            ? "downcity init"
            : "Fix each field named above in downcity.json (its $schema helps editors), then downcity doctor --offline again.",
        };
  const section = report.config?.channels;
  return {
    config,
    ...(modelProblems.length > 0
      ? {
          model: {
            name: "model",
            status: "fail",
            detail: modelProblems.map((problem) => problem.message).join("; "),
            ...(modelProblems[0]?.fix ? { fix: modelProblems[0].fix } : {}),
          },
        }
      : {}),
    loads: report.config !== undefined,
    ...(report.config?.llm ? { llm: report.config.llm } : {}),
    channels: section ? Object.keys(section) : [],
    shellSection: (report.config as { shell?: unknown } | undefined)?.shell,
    env: report.env ?? io.env,
  };
}
