/**
 * Adversarial suite, redaction (issue 11): a receiver that echoes its request in the response
 * must not put a custom header value, a query token or the signing secret into the attempt
 * log, whatever form the echo takes. The real dispatcher core runs with an in-memory sender
 * that answers with the crafted body; what is checked is the stored record.
 */

import { RESPONSE_SNIPPET_BYTES } from '../../lambdas/core/constants';
import { createDispatcher } from '../../lambdas/core/dispatch';
import { REDACTED, redact, sensitiveList } from '../../lambdas/core/redact';
import type { Connection } from '../../lambdas/core/types';
import { connection, ok, SECRET } from '../support/fixtures';
import { memoryPorts } from '../support/memory';

const plenty = { remainingMs: () => 120_000 };
const TOKEN = 'tok-8f3/Zq+é secret';

const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7' },
  application: { id: 'app_1', name: 'Acme' },
};

/** Runs one event to a connection whose receiver answers 500 with `body`; returns the stored snippet. */
async function snippetFor(body: string, overrides: Partial<Connection> = {}): Promise<string> {
  const conn = connection('con_a', { headers: { 'X-Api-Key': TOKEN }, ...overrides });
  const f = memoryPorts([conn], { responder: () => ok(500, body) });
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTtlDays: 30,
    concurrency: 1,
    egress: { allowedPorts: [443], allowLoopback: false },
  });
  await dispatcher.processBatch([{ messageId: 'm', body: JSON.stringify(event) }], plenty);
  const snippet = f.state.records[0]?.responseSnippet ?? '';
  expect(Buffer.byteLength(snippet, 'utf8')).toBeLessThanOrEqual(RESPONSE_SNIPPET_BYTES);
  return snippet;
}

const jsonAllEscaped = (v: string) =>
  [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

describe('a custom header value echoed by the receiver', () => {
  it.each([
    ['as sent', TOKEN],
    ['JSON-stringified (\\/ and \\u00e9)', JSON.stringify(TOKEN).slice(1, -1).replace('/', '\\/')],
    ['every character as \\uXXXX', jsonAllEscaped(TOKEN)],
    ['upper-case \\u escapes', jsonAllEscaped(TOKEN).toUpperCase().replaceAll('\\U', '\\u')],
    ['percent-encoded', encodeURIComponent(TOKEN)],
    [
      'percent-encoded, lower-case hex',
      encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ['form-encoded (+ for space)', new URLSearchParams({ k: TOKEN }).toString().slice(2)],
    ['as HTML character references', [...TOKEN].map((c) => `&#${c.codePointAt(0)};`).join('')],
    ['a mix of forms', `tok-8f3\\/Zq%2B\\u00e9 secr&#x65;t`],
    // Node's HTTP server reads header bytes as Latin-1: the é sent as UTF-8 comes back as Ã©.
    ['as a Latin-1-decoding receiver echoes it (é as Ã©)', Buffer.from(TOKEN, 'utf8').toString('latin1')],
    [
      'as a Latin-1-decoding receiver echoes it, percent-encoded',
      encodeURIComponent(Buffer.from(TOKEN, 'utf8').toString('latin1')),
    ],
  ])('%s is redacted', async (_form, echo) => {
    const snippet = await snippetFor(`{"error":"bad key","echo":"${echo}"}`);
    expect(snippet).toBe(`{"error":"bad key","echo":"${REDACTED}"}`);
  });

  it('a value saved with surrounding spaces is redacted as the receiver saw it: trimmed', async () => {
    const snippet = await snippetFor('{"you sent":"spaced-value-123"}', {
      headers: { 'X-Api-Key': '   spaced-value-123  ' },
    });
    expect(snippet).not.toContain('spaced-value-123');
  });

  it.each([1, 2, 3, 5, 10, 17])(
    'a value crossing the 1 KiB cut (%i characters before it) leaves no part of itself behind',
    async (before) => {
      const pad = 'x'.repeat(RESPONSE_SNIPPET_BYTES - before);
      const snippet = await snippetFor(`${pad}${TOKEN}${'y'.repeat(2000)}`);
      expect(snippet.startsWith(pad)).toBe(true);
      expect(snippet.slice(pad.length)).toBe(`${REDACTED}${'y'.repeat(2000)}`.slice(0, before));
      expect(snippet).not.toContain('tok-8');
    },
  );

  it('a value crossing the cut in an escaped form is redacted too', async () => {
    const echo = jsonAllEscaped(TOKEN);
    const pad = 'x'.repeat(RESPONSE_SNIPPET_BYTES - 12);
    const snippet = await snippetFor(`${pad}${echo}`);
    expect(snippet).not.toContain('\\u0074\\u006f');
    expect(snippet.slice(pad.length)).toBe(REDACTED.slice(0, 12));
  });

  it('a very short value (under 4 characters) is redacted where it stands alone, and only there', async () => {
    const snippet = await snippetFor('{"key":"k9","note":"k9x and xk9 and 2k9"}', {
      headers: { 'X-Api-Key': 'k9' },
    });
    expect(snippet).toBe(`{"key":"${REDACTED}","note":"k9x and xk9 and 2k9"}`);
  });

  it('the signing secret and a query token echoed back are redacted too', async () => {
    const snippet = await snippetFor(
      `secret=${SECRET} url=/hooks?token=query-secret enc=${encodeURIComponent(SECRET)}`,
    );
    expect(snippet).not.toContain(SECRET);
    expect(snippet).not.toContain('query-secret');
    expect(snippet).not.toContain(encodeURIComponent(SECRET));
  });

  it('a value containing regex syntax is matched literally', () => {
    expect(redact('a.b*c(d)[e]{f}|g^h$i?j+k\\l/m', ['.b*c(d)[e]{f}|g^h$i?j+k\\l/'])).toBe(`a${REDACTED}m`);
    expect(redact('aXbbc', ['.b*c'])).toBe('aXbbc');
  });

  it('after a secret rotation, the new secret and the one before it are redacted during the overlap', async () => {
    // The same connection is attempted, its secret rotated in between: the value list (and its
    // cached pattern) follows the secret the attempt was signed with, and keeps the previous one
    // until the connection record is next replaced (the connection cache's refresh).
    const conn = connection('con_a', { headers: { 'X-Api-Key': TOKEN } });
    let secret = SECRET;
    const f = memoryPorts([conn], { responder: () => ok(500, `old=${SECRET} new=whsec_rotated_0123456789`) });
    f.deps.secrets = { current: async () => secret };
    const dispatcher = createDispatcher(f.deps, {
      headerPrefix: 'X-Service',
      attemptTtlDays: 30,
      concurrency: 1,
      egress: { allowedPorts: [443], allowLoopback: false },
    });
    const run = (eventId: string) =>
      dispatcher.processBatch([{ messageId: eventId, body: JSON.stringify({ ...event, eventId }) }], plenty);
    await run('evt_01JD3XQ4Z8K2M5N7P9R1S3T5V1');
    secret = 'whsec_rotated_0123456789';
    await run('evt_01JD3XQ4Z8K2M5N7P9R1S3T5V2');
    // The cache hands out a fresh record of the same connection: the overlap is over.
    f.state.connections.set('con_a', { ...conn });
    await run('evt_01JD3XQ4Z8K2M5N7P9R1S3T5V3');
    const [before, during, after] = f.state.records.map((r) => r.responseSnippet);
    expect(before).toBe(`old=${REDACTED} new=whsec_rotated_0123456789`);
    expect(during).toBe(`old=${REDACTED} new=${REDACTED}`);
    expect(after).toBe(`old=${SECRET} new=${REDACTED}`);
  });

  it('a frozen value list keeps its pattern; an unfrozen list is read afresh on every call', () => {
    const list = sensitiveList(['abcd']);
    expect(redact('abcd efgh', list)).toBe(`${REDACTED} efgh`);
    expect(redact('xabcdx', list)).toBe(`x${REDACTED}x`);
    const open = ['abcd'];
    expect(redact('abcd efgh', open)).toBe(`${REDACTED} efgh`);
    open.push('efgh');
    expect(redact('abcd efgh', open)).toBe(`${REDACTED} ${REDACTED}`);
    expect(redact('abcd', sensitiveList(['  ']))).toBe('abcd');
  });

  it('a text with no encoding character (\\ % & +) is redacted as the full pattern would: the fast path agrees', () => {
    // A trailing '%' sends the same text down the pattern of every encoded form: same result.
    const values = sensitiveList(['k9', 'abcd', 'abcdef-long', 'é🙂 x', '.b*c(d)']);
    const texts = [
      'k9 xk9 k9x 2k9 _k9_ abcd abcdef-long abcdefx',
      'é🙂 x and é🙂 xy and a.b*c(d)e and aXbbc',
      '{"echo":"abcdabcd","n":"k9"} ok',
      '',
      'nothing here',
    ];
    for (const text of texts) expect(`${redact(text, values)}`).toBe(redact(`${text}%`, values).slice(0, -1));
    expect(redact('k9 xk9 abcdef-long', values)).toBe(`${REDACTED} xk9 ${REDACTED}`);
  });

  it('a value inside a longer one is redacted with it, whole', () => {
    expect(redact('key=abcdef-long', ['abcd', 'abcdef-long'])).toBe(`key=${REDACTED}`);
  });
});
