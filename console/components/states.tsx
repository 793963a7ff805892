/** The designed loading, empty and error states every view uses. */

import type { ComponentChildren } from 'preact';
import { ApiCallError } from '../api';

export function Loading({ what }: { what: string }) {
  return (
    <div class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      <span>Loading {what}…</span>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <p class="state-title">{title}</p>
      {children}
    </div>
  );
}

/** An error with what went wrong (the API's message, as text) and a way to try again. */
export function Failed({ what, error, retry }: { what: string; error: Error; retry?: () => void }) {
  const status = error instanceof ApiCallError && error.status ? ` (${error.status})` : '';
  return (
    <div class="state state-error" role="alert">
      <p class="state-title">
        Could not load {what}
        {status}
      </p>
      <p class="state-detail">{error.message}</p>
      {retry && (
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
