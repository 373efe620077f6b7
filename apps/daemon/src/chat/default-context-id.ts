/** The channel of messages typed into `downcity chat` (and sent over the HTTP API without one). */
export const cliChannel = "cli";

/** The context a chat message goes to when none is given; defined once for the daemon and the CLI. */
export const defaultContextId = `${cliChannel}:main`;
