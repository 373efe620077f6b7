/**
 * Splits an `allowed-tools` value into entries: a YAML list is taken as is, a string is split on
 * commas and whitespace outside parentheses so patterns such as `Bash(git *)` stay whole.
 */
export function parseAllowedTools(value: string | readonly string[]): string[] {
  const entries =
    typeof value === "string" ? splitOutsideParentheses(value) : value.map((entry) => entry.trim());
  return [...new Set(entries.filter((entry) => entry.length > 0))];
}

function splitOutsideParentheses(value: string): string[] {
  const entries: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of value) {
    if (char === "(") depth += 1;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      entries.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  entries.push(current.trim());
  return entries;
}
