/** What a visitor without a working session sees: why, and how to get a new link. */

import { consoleCommandFor, DEFAULT_CONSOLE_COMMAND } from '../api';
import { isLocalMode, useApiIndex } from '../use-api-index';

export function SessionPage({
  reason,
  applicationId,
}: {
  reason: 'expired' | 'missing' | 'invalid';
  /** The application the old link was for, when known: the command then names it. */
  applicationId?: string | undefined;
}) {
  const index = useApiIndex();
  const title =
    reason === 'expired'
      ? 'Your session has expired'
      : reason === 'missing'
        ? 'This page needs a console link'
        : 'This console link is not valid';
  const why =
    reason === 'expired'
      ? 'Console links are short-lived and this one is no longer accepted. Nothing was changed.'
      : reason === 'missing'
        ? 'The console opens from a link that carries a session token, like …/console/#token=…'
        : 'The link was cut short, changed, or was made for another deployment.';
  return (
    <main class="session-page">
      <div class="card">
        <h1>{title}</h1>
        <p>{why}</p>
        <h2>Get a new link</h2>
        <p>
          {isLocalMode(index)
            ? 'This console is served by local mode (npm start). In the project folder, mint a link'
            : 'If you run the webhook stack, mint one'}{' '}
          for your application (valid for one hour unless you pass <code>--ttl</code>):
        </p>
        {index === 'loading' ? (
          <p class="muted" role="status">
            Looking up the command for this server…
          </p>
        ) : (
          <pre class="command">
            {consoleCommandFor(
              index === 'unknown' ? DEFAULT_CONSOLE_COMMAND : index.consoleCommand,
              applicationId,
            )}
          </pre>
        )}
        {index === 'unknown' && (
          <p class="muted">
            In local mode (<code>npm start</code>), add <code>--local</code> after <code>webhooks</code>.
          </p>
        )}
        <p>
          If you reached this console from a product, go back to it and open the webhooks settings again: its
          backend creates a fresh link each time.
        </p>
      </div>
    </main>
  );
}
