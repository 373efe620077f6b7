// The `downcity` and `city` bins: the command line of @downcity/cli, bundled into this package.
import "@downcity/cli/main";
