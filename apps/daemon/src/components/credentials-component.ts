import { defaultContextId } from "../chat/default-context-id.js";
import { daemonComponent } from "../host/daemon-parts.js";
import { createShellCredentials } from "../security/create-shell-credentials.js";

/**
 * Shell children never see the user-level token: each session gets a token scoped to this daemon,
 * its context and its own lifetime (see security/). Revoked before the shell engine closes.
 */
export const credentialsComponent = daemonComponent({
  name: "credentials",
  dependsOn: ["shell"],
  setup({ shell }) {
    const credentials = createShellCredentials({
      status: (shellId) => shell.engine.status({ shell_id: shellId }),
      defaultContextId,
    });
    shell.callback.token = credentials.issue;
    return { value: credentials, close: () => credentials.tokens.revokeAll() };
  },
});
