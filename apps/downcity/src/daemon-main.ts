// The detached daemon the CLI spawns: found as `daemon-main.js` beside the bundled daemon code.
import "@downcity/daemon/daemon-main";
