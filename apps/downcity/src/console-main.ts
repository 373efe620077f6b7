// The user-level console process the CLI spawns: found as `console-main.js` beside the bundled daemon code.
import "@downcity/daemon/console-main";
