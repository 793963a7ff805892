/**
 * A publisher's trace context as it travels with an event (docs/operations.md "Traces"): the
 * W3C `traceparent` form (`00-<trace id>-<parent id>-<flags>`), read from the message's
 * `traceparent` attribute or converted from the X-Ray `AWSTraceHeader` SQS sets
 * (`Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=1`: the same ids, written differently). Its
 * deliveries carry it across retries; each attempt's span records it. Never sent to a receiver.
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** A W3C `traceparent` of version 00 with non-zero ids. */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = TRACEPARENT.exec(value);
  return m !== null && !ZEROS.test(m[1]!) && !ZEROS.test(m[2]!);
}

/** An X-Ray trace header (`Root=…;Parent=…;Sampled=…`) as a `traceparent`; undefined without a root and parent. */
export function traceparentOfXray(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const fields = new Map(
    header.split(';').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const root = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/.exec(fields.get('Root') ?? '');
  const parent = fields.get('Parent');
  if (!root || !parent || !/^[0-9a-f]{16}$/.test(parent)) return undefined;
  const traceparent = `00-${root[1]}${root[2]}-${parent}-${fields.get('Sampled') === '1' ? '01' : '00'}`;
  return isTraceparent(traceparent) ? traceparent : undefined;
}

/** The X-Ray form of a `traceparent`'s trace id (`1-<8 hex>-<24 hex>`): what X-Ray searches by. */
export function xrayTraceIdOf(traceparent: string): string {
  const id = traceparent.slice(3, 35);
  return `1-${id.slice(0, 8)}-${id.slice(8)}`;
}

/** The X-Ray trace header of a `traceparent`, for SQS's `AWSTraceHeader`. */
export function xrayHeaderOf(traceparent: string): string {
  return `Root=${xrayTraceIdOf(traceparent)};Parent=${traceparent.slice(36, 52)};Sampled=${traceparent.endsWith('01') ? '1' : '0'}`;
}

/** Whether an X-Ray trace header says the trace is sampled (`Sampled=1`). */
export function isSampledXray(header: string | undefined): boolean {
  return header !== undefined && /(^|;)\s*Sampled=1\s*(;|$)/.test(header);
}
