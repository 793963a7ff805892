/** "Add connection": a new webhook connection. */

import type { ApiClient } from '../api';
import { ConnectionForm } from '../components/connection-form';
import { href, navigate } from '../router';

export function NewConnectionPage({ api }: { api: ApiClient }) {
  return (
    <section class="narrow">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={href.connections()}>CRM Connections</a> <span aria-hidden="true">/</span> Add connection
      </nav>
      <h1>Add connection</h1>
      <p class="lede">Choose the type, then say where events go.</p>
      <div class="card">
        <ConnectionForm
          submitLabel="Add connection"
          busyLabel="Adding…"
          onSubmit={async (input) => {
            const created = await api.createConnection(input);
            navigate(href.connection(created.connectionId));
          }}
          onCancel={() => navigate(href.connections())}
        />
      </div>
    </section>
  );
}
