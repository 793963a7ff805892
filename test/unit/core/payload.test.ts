import { ValidationError } from '../../../lambdas/core/errors';
import { buildPayload, checkBody, serialiseBody } from '../../../lambdas/core/payload';

const user = {
  id: 'usr_123',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '+44 20 7946 0000',
  metadata: { plan: 'pro', source: 'extension', seats: 3, trial: false, ref: null },
  createdAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-11-21T14:53:00Z',
};
const application = { id: 'app_42', name: 'Acme Extension' };
const timestamp = '2026-11-21T14:53:00.123Z';

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('buildPayload + serialiseBody', () => {
  it('serialises in the spec field order: event, timestamp, user, application', () => {
    const shuffled = { updatedAt: user.updatedAt, metadata: user.metadata, id: user.id, email: user.email };
    const body = serialiseBody(
      buildPayload({ timestamp, user: shuffled, application: { name: 'A', id: 'app_1' } }),
    );
    expect(body).toBe(
      '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z",' +
        '"user":{"id":"usr_123","email":"ada@example.com","metadata":{"plan":"pro","source":"extension","seats":3,"trial":false,"ref":null},"updatedAt":"2026-11-21T14:53:00Z"},' +
        '"application":{"id":"app_1","name":"A"}}',
    );
  });

  it('keeps every user field of docs/protocol.md §2', () => {
    const payload = buildPayload({ timestamp, user, application });
    expect(payload.user).toEqual(user);
    expect(Object.keys(payload.user)).toEqual(Object.keys(user));
  });

  it('defaults metadata to {} and omits unknown optional fields', () => {
    const body = serialiseBody(buildPayload({ timestamp, user: { id: 'usr_1' }, application }));
    expect(JSON.parse(body).user).toEqual({ id: 'usr_1', metadata: {} });
  });

  it.each([
    [{ ...user, id: undefined }, 'user.id'],
    [{ ...user, id: 'user_1' }, 'user.id'],
    [{ ...user, email: null }, 'user.email'],
    [{ ...user, email: 'not-an-email' }, 'user.email'],
    [{ ...user, name: 42 }, 'user.name'],
    [{ ...user, firstName: '' }, 'user.firstName'],
    [{ ...user, lastName: 'x'.repeat(257) }, 'user.lastName'],
    [{ ...user, phone: 'x'.repeat(65) }, 'user.phone'],
    [{ ...user, metadata: [] }, 'user.metadata'],
    [{ ...user, metadata: { nested: { a: 1 } } }, 'user.metadata.nested'],
    [{ ...user, metadata: { n: Number.NaN } }, 'user.metadata.n'],
    [{ ...user, metadata: { list: [1] } }, 'user.metadata.list'],
    [{ ...user, createdAt: '2026-01-02 03:04:05' }, 'user.createdAt'],
    [{ ...user, updatedAt: '2026-13-40T00:00:00Z' }, 'user.updatedAt'],
    [{ ...user, updatedAt: '2026-11-21T14:53:00+01:00' }, 'user.updatedAt'],
    [{ ...user, password: 'x' }, 'user.password'],
  ])('refuses a user breaking a rule and names the field (%#: %s)', (badUser, field) => {
    expect(fieldOf(() => buildPayload({ timestamp, user: badUser, application }))).toBe(field);
  });

  it('refuses a user that is not an object', () => {
    expect(fieldOf(() => buildPayload({ timestamp, user: 'usr_1', application }))).toBe('user');
  });

  it.each([
    [{ name: 'x' }, 'application.id'],
    [{ id: 'acme', name: 'x' }, 'application.id'],
    [{ id: 'app_1' }, 'application.name'],
    [{ id: 'app_1', name: '' }, 'application.name'],
    [{ id: 'app_1', name: 'x', secret: 'y' }, 'application.secret'],
    [null, 'application'],
  ])('refuses an application breaking a rule (%#)', (badApp, field) => {
    expect(fieldOf(() => buildPayload({ timestamp, user, application: badApp }))).toBe(field);
  });

  it.each(['2026-11-21T14:53:00Z', '2026-11-21T14:53:00.123+00:00', 'yesterday'])(
    'refuses a timestamp that is not ISO 8601 UTC with milliseconds: %s',
    (bad) => {
      expect(fieldOf(() => buildPayload({ timestamp: bad, user, application }))).toBe('timestamp');
    },
  );

  it('refuses a body over 256 KiB, naming the size', () => {
    const big = {
      ...user,
      metadata: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'x'.repeat(2700)])),
    };
    expect(() => serialiseBody(buildPayload({ timestamp, user: big, application }))).toThrow(
      /at most 262144 bytes/,
    );
  });
});

describe('checkBody', () => {
  const body = serialiseBody(buildPayload({ timestamp, user, application }));

  it('accepts a canonical body', () => {
    expect(checkBody(body).user.id).toBe('usr_123');
  });

  it.each([
    ['not json', 'body'],
    ['[]', 'body'],
    [body.replace('user.identified', 'user.deleted'), 'body.event'],
    [body.replace('{"event"', '{"extra":1,"event"'), 'body.extra'],
  ])('refuses a tampered body (%#)', (bad, field) => {
    expect(fieldOf(() => checkBody(bad))).toBe(field);
  });

  it('refuses a body whose fields are reordered', () => {
    const reordered = JSON.stringify({ timestamp, event: 'user.identified', user: { ...user }, application });
    expect(() => checkBody(reordered)).toThrow(/canonical/);
  });
});
