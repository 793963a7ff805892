/**
 * Type, Name, URL, Method and Headers of a webhook connection, each with a visible label bound
 * to its input and its own error beside it. The simple rules are checked before anything is
 * sent and every broken one is shown at once (console/connection-rules.ts); a refusal of the
 * API is shown, in words, beside the field it names. Focus goes to the first field to fix.
 */

import { useId, useState } from 'preact/hooks';
import { ApiError } from '../api';
import {
  checkConnectionForm,
  type Field,
  type FieldErrors,
  fieldOf,
  plainFieldError,
} from '../connection-rules';
import { type Connection, type ConnectionInput, METHODS, type Method } from '../types';

export interface ConnectionFormProps {
  /** An existing connection to edit: its header values are hidden, so the form shows null ("keep"). */
  initial?: Connection;
  submitLabel: string;
  busyLabel: string;
  onSubmit: (input: ConnectionInput) => Promise<void>;
  onCancel?: () => void;
}

const ORDER: Field[] = ['name', 'url', 'method', 'headers'];

export function ConnectionForm({ initial, submitLabel, busyLabel, onSubmit, onCancel }: ConnectionFormProps) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [method, setMethod] = useState<Method>(initial?.method ?? 'POST');
  const headerNames = Object.keys(initial?.headers ?? {});
  const initialHeaders = headerNames.length
    ? JSON.stringify(Object.fromEntries(headerNames.map((h) => [h, null])), null, 2)
    : '';
  const [headers, setHeaders] = useState(initialHeaders);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);

  /** Shows the errors and moves focus to the first field that has one. */
  const show = (found: FieldErrors) => {
    setErrors(found);
    const first = ORDER.find((f) => found[f]);
    if (first) document.getElementById(`${id}-${first}`)?.focus();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    const checked = checkConnectionForm({ name, url, headers }, { editing: initial !== undefined });
    if (Object.keys(checked.errors).length > 0 || !checked.headers) {
      show(checked.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      // Untouched headers are not sent: the API may show their values masked, and sending
      // the masks back would replace the real values.
      const input: ConnectionInput = { name: name.trim(), url: url.trim(), method };
      if (headers !== initialHeaders) input.headers = checked.headers;
      await onSubmit(input);
    } catch (error) {
      const field = error instanceof ApiError ? fieldOf(error.field) : undefined;
      if (field) show({ [field]: plainFieldError((error as ApiError).field!, (error as ApiError).message) });
      else setFormError((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const describe = (field: Field, hint?: string) =>
    [errors[field] ? `${id}-${field}-error` : '', hint ? `${id}-${field}-hint` : '']
      .filter(Boolean)
      .join(' ') || undefined;
  const error = (field: Field) =>
    errors[field] && (
      <p class="field-error" id={`${id}-${field}-error`}>
        {errors[field]}
      </p>
    );

  return (
    <form class="form" onSubmit={submit} noValidate>
      <div class="field">
        <label for={`${id}-type`}>Type</label>
        <select
          id={`${id}-type`}
          name="type"
          value="webhook"
          disabled={initial !== undefined}
          aria-describedby={`${id}-type-hint`}
        >
          <option value="webhook">Webhook</option>
        </select>
        <p class="field-hint" id={`${id}-type-hint`}>
          {initial
            ? 'The type of a connection does not change.'
            : 'Each event is sent as a signed HTTPS request to the URL.'}
        </p>
      </div>
      <div class={`field ${errors.name ? 'invalid' : ''}`}>
        <label for={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          name="name"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describe('name')}
          autoComplete="off"
          placeholder="Orders to CRM"
        />
        {error('name')}
      </div>
      <div class={`field ${errors.url ? 'invalid' : ''}`}>
        <label for={`${id}-url`}>URL</label>
        <input
          id={`${id}-url`}
          name="url"
          type="url"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={describe('url', 'hint')}
          autoComplete="off"
          placeholder="https://crm.example.com/webhooks"
          spellcheck={false}
        />
        <p class="field-hint" id={`${id}-url-hint`}>
          The receiver's HTTPS address. Events are signed with this connection's secret.
        </p>
        {error('url')}
      </div>
      <div class={`field ${errors.method ? 'invalid' : ''}`}>
        <label for={`${id}-method`}>Method</label>
        <select
          id={`${id}-method`}
          name="method"
          value={method}
          onChange={(e) => setMethod(e.currentTarget.value as Method)}
          aria-invalid={errors.method ? true : undefined}
          aria-describedby={describe('method')}
        >
          {METHODS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        {error('method')}
      </div>
      <div class={`field ${errors.headers ? 'invalid' : ''}`}>
        <label for={`${id}-headers`}>Headers</label>
        <textarea
          id={`${id}-headers`}
          name="headers"
          rows={4}
          value={headers}
          onInput={(e) => setHeaders(e.currentTarget.value)}
          aria-invalid={errors.headers ? true : undefined}
          aria-describedby={describe('headers', 'hint')}
          spellcheck={false}
          placeholder={'{ "X-Team": "crm" }'}
        />
        <p class="field-hint" id={`${id}-headers-hint`}>
          {initial
            ? 'A JSON object of extra headers. Stored values are never shown: null keeps a value, a header left out is removed.'
            : 'Optional. A JSON object of extra headers sent with every delivery, like {"X-Team": "crm"}.'}
        </p>
        {error('headers')}
      </div>
      {formError && (
        <p class="form-error" role="alert">
          {formError}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
