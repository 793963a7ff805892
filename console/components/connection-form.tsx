/**
 * Type, Name, URL, Method, Rate limit, Headers and Automatic recovery of a webhook connection,
 * each with a visible label bound to its input and its own error beside it. The simple rules are checked before anything is
 * sent and every broken one is shown at once (console/connection-rules.ts); a refusal of the
 * API is shown, in words, beside the field it names. Focus goes to the first field to fix.
 */

import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiCallError } from '../api';
import {
  checkConnectionForm,
  type Field,
  type FieldErrors,
  fieldOf,
  parseRateLimit,
  plainFieldError,
} from '../connection-rules';
import { type Connection, type ConnectionInput, METHODS, type Method } from '../types';
import { isLocalMode, useApiIndex } from '../use-api-index';

export interface ConnectionFormProps {
  /** An existing connection to edit: its header values are hidden, so the form shows null ("keep"). */
  initial?: Connection;
  submitLabel: string;
  busyLabel: string;
  onSubmit: (input: ConnectionInput) => Promise<void>;
  onCancel?: () => void;
}

const ORDER: Field[] = ['name', 'url', 'method', 'rateLimit', 'headers'];

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
  const initialRate = initial?.rateLimit !== undefined ? String(initial.rateLimit) : '';
  const [rateLimit, setRateLimit] = useState(initialRate);
  // Absent means on (the stack's recovery checks apply); only an explicit false turns it off.
  const initialRecovery = initial?.recoveryProbes !== false;
  const [recovery, setRecovery] = useState(initialRecovery);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Local mode's API says so in its index: an http:// URL then gets local mode's next step.
  const local = isLocalMode(useApiIndex());

  /** Shows the errors and moves focus to the first field that has one. */
  const show = (found: FieldErrors) => {
    setErrors(found);
    const first = ORDER.find((f) => found[f]);
    if (first) document.getElementById(`${id}-${first}`)?.focus();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    const checked = checkConnectionForm(
      { name, url, headers, rateLimit },
      { editing: initial !== undefined, local },
    );
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
      // Sent when typed at create, and on edit only when changed (blank clears it: null).
      const rate = parseRateLimit(rateLimit);
      if (rateLimit !== initialRate && 'value' in rate) {
        if (rate.value !== null || initial) input.rateLimit = rate.value;
      }
      // Sent only when it differs from what is stored (at create: from the default, on).
      if (recovery !== initialRecovery) input.recoveryProbes = recovery;
      await onSubmit(input);
    } catch (error) {
      const field = error instanceof ApiCallError ? fieldOf(error.field) : undefined;
      if (field) {
        const { field: apiField, message } = error as ApiCallError;
        show({ [field]: plainFieldError(apiField!, message, { url, local }) });
      } else setFormError((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const block = (field: Field | 'type', label: string, hint?: string) => ({
    id: `${id}-${field}`,
    label,
    hint,
    error: field === 'type' ? undefined : errors[field],
  });

  return (
    <form class="form" onSubmit={submit} noValidate>
      <FieldBlock
        {...block(
          'type',
          'Type',
          initial
            ? 'The type of a connection does not change.'
            : 'Each event is sent as a signed HTTPS request to the URL.',
        )}
      >
        {(a) => (
          <select {...a} name="type" value="webhook" disabled={initial !== undefined}>
            <option value="webhook">Webhook</option>
          </select>
        )}
      </FieldBlock>
      <FieldBlock {...block('name', 'Name')}>
        {(a) => (
          <input
            {...a}
            name="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            autoComplete="off"
            placeholder="Orders to CRM"
          />
        )}
      </FieldBlock>
      <FieldBlock
        {...block(
          'url',
          'URL',
          "The receiver's HTTPS address. Events are signed with this connection's secret.",
        )}
      >
        {(a) => (
          <input
            {...a}
            name="url"
            type="url"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            autoComplete="off"
            placeholder="https://crm.example.com/webhooks"
            spellcheck={false}
          />
        )}
      </FieldBlock>
      <FieldBlock {...block('method', 'Method')}>
        {(a) => (
          <select
            {...a}
            name="method"
            value={method}
            onChange={(e) => setMethod(e.currentTarget.value as Method)}
          >
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        )}
      </FieldBlock>
      <FieldBlock
        {...block(
          'rateLimit',
          'Rate limit (deliveries per second)',
          "Optional. At most this many deliveries a second reach the receiver; more wait their turn (no attempt is used). Blank: no limit of the connection's own.",
        )}
      >
        {(a) => (
          <input
            {...a}
            name="rateLimit"
            inputMode="numeric"
            value={rateLimit}
            onInput={(e) => setRateLimit(e.currentTarget.value)}
            autoComplete="off"
            placeholder="50"
          />
        )}
      </FieldBlock>
      <FieldBlock
        {...block(
          'headers',
          'Headers',
          initial
            ? 'A JSON object of extra headers. Stored values are never shown: null keeps a value, a header left out is removed.'
            : 'Optional. A JSON object of extra headers sent with every delivery, like {"X-Team": "crm"}.',
        )}
      >
        {(a) => (
          <textarea
            {...a}
            name="headers"
            rows={4}
            value={headers}
            onInput={(e) => setHeaders(e.currentTarget.value)}
            spellcheck={false}
            placeholder={'{ "X-Team": "crm" }'}
          />
        )}
      </FieldBlock>
      <div class="field check-field">
        <input
          id={`${id}-recovery`}
          name="recoveryProbes"
          type="checkbox"
          class="check-input"
          checked={recovery}
          onChange={(e) => setRecovery(e.currentTarget.checked)}
          aria-describedby={`${id}-recovery-hint`}
        />
        <label for={`${id}-recovery`}>Automatic recovery</label>
        <p class="field-hint" id={`${id}-recovery-hint`}>
          When the endpoint fails and deliveries are parked, it is checked again on a backoff schedule and
          they are sent once it answers 2xx. Off: parked deliveries wait for Recover.
        </p>
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

/** What a field's control needs to be bound to its label, hint and error. */
interface ControlProps {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

/** One field: its visible label, the control, its hint and its error beside it. */
function FieldBlock(props: {
  id: string;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  children: (control: ControlProps) => ComponentChildren;
}) {
  const { id, label, hint, error } = props;
  const describedBy = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  const control: ControlProps = { id };
  if (error) control['aria-invalid'] = true;
  if (describedBy) control['aria-describedby'] = describedBy;
  return (
    <div class={`field ${error ? 'invalid' : ''}`}>
      <label for={id}>{label}</label>
      {props.children(control)}
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
