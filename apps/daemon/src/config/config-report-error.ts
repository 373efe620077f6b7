import { DowncityError } from "@downcity/core";
import type { ProjectConfigProblem } from "./validate-project-config.js";

/** One line per problem: the field, what is wrong, and the fix when there is one. */
export function describeProblems(problems: readonly ProjectConfigProblem[]): string {
  return problems
    .map((problem) => {
      const [first = "", ...rest] = problem.message.split("\n");
      const head = first.startsWith(problem.field) ? first : `${problem.field}: ${first}`;
      return [
        `  - ${head}`,
        ...rest.map((line) => `    ${line}`),
        ...(problem.fix ? [`    fix: ${problem.fix}`] : []),
      ].join("\n");
    })
    .join("\n");
}

/** The error a command ends with when `problems` stop it: the heading, then every problem. */
export function configReportError(heading: string, problems: readonly ProjectConfigProblem[]): DowncityError {
  const error = new DowncityError("CONFIG_INVALID", `${heading}\n${describeProblems(problems)}`, {
    field: problems[0]?.field ?? "downcity.json",
  });
  return Object.assign(error, { problems });
}
