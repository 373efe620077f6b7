/** The nine tools `createShellTools` gives an agent, sorted: the tests that check the set share it. */
export const shellToolNames = [
  "shell_close",
  "shell_exec",
  "shell_list",
  "shell_read",
  "shell_sleep",
  "shell_start",
  "shell_status",
  "shell_wait",
  "shell_write",
];
