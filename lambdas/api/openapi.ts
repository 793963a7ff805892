/**
 * The OpenAPI document on its own (no AWS, no key): what `npm run openapi` writes to
 * docs/openapi.json and what a unit test compares with that checked copy.
 */

import type { WebhookManagement } from '../management';
import { createApi, openApiDocument } from './app';

export function apiDocument() {
  const inert = {
    get(): Promise<Uint8Array> {
      return Promise.reject(new Error('no key: document only'));
    },
  };
  return openApiDocument(createApi({ management: {} as WebhookManagement, sessionKey: inert }));
}

/** The document as the checked copy holds it: two-space JSON and a final newline. */
export function apiDocumentText(): string {
  return `${JSON.stringify(apiDocument(), null, 2)}\n`;
}
