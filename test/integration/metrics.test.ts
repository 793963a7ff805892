/**
 * Local `/metrics` end to end: `npm start` in its own process, one event to a receiver that
 * answers 503, 503, then 200 (the demo receiver's `/flaky`), and the Prometheus text scraped
 * before and after. The dispatcher counts into the registry the API server reads.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CONNECTION_CACHE_TTL_MS, LOCAL_CREDENTIALS } from '../../local/constants';
import type { LocalState } from '../../local/state';
import { type OutputChild, spawnUntil } from '../support/child';
import { waitFor } from '../support/wait';

const ROOT = resolve(__dirname, '..', '..');
const APP = 'app_metrics_e2e';
/** Longer than local mode's connection cache (LOCAL_CONNECTION_CACHE_TTL_MS), with room to spare. */
const CACHE_WAIT_MS = LOCAL_CONNECTION_CACHE_TTL_MS + 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let local: OutputChild;
let env: NodeJS.ProcessEnv;
let apiUrl: string;
let receiverOrigin: string;
let state: LocalState;

/** The test's environment without the integration project's emulator settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AWS_|WEBHOOKS_)/.test(key) && key !== 'DEBUG') out[key] = value;
  }
  return out;
}

/** Runs `webhooks --local …`: its exit code and output (stdin a pipe, as in CI). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['cli/webhooks.cjs', '--local', ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

async function webhooks(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await run(args);
  if (code !== 0) throw new Error(`webhooks ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

/** Every sample of the text format by its series (`name{label="v",…}`), summed if repeated. */
/** Creates a connection of APP to the demo receiver's `path`; `extra` are more flags (`--json`). */
function createConnection(name: string, path: string, ...extra: string[]): Promise<string> {
  return webhooks([
    'connections',
    'create',
    '--application',
    APP,
    '--name',
    name,
    '--url',
    `${receiverOrigin}${path}`,
    ...extra,
  ]);
}

async function scrape(): Promise<{ contentType: string; series: Map<string, number>; text: string }> {
  const res = await fetch(`${apiUrl}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { contentType: res.headers.get('content-type') ?? '', series, text };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wh-metrics-'));
  const stateFile = join(dir, 'state.json');
  env = { ...cleanEnv(), WEBHOOKS_STATE_FILE: stateFile, NO_COLOR: '1' };
  local = await spawnUntil('local/start.ts', [], {
    env,
    timeoutMs: 60_000,
    ready: (output) => /✓ delivered\s+dlv_/.test(output),
  });
  state = JSON.parse(readFileSync(stateFile, 'utf8'));
  apiUrl = state.resources.apiUrl!;
  receiverOrigin = new URL(state.demoReceiverUrl!).origin;
});

afterAll(async () => {
  local.child.kill('SIGINT');
  expect(await local.exitCode).toBe(0);
});

it('after one event that fails twice and then arrives, shows 2 http_error and 1 delivered attempt, 3 durations, 2 retries and 1 delivery', async () => {
  const created = await createConnection('Flaky', '/flaky');
  expect(created).toMatch(/Created connection con_/);
  const before = await scrape();
  const at = (s: typeof before, series: string) => s.series.get(series) ?? 0;
  const delivered = 'webhooks_deliveries_total{result="delivered"}';

  await webhooks([
    'publish',
    '--application',
    APP,
    '--user-json',
    '{"id":"usr_metrics","email":"m@example.com"}',
  ]);
  // Retries after 1 s and 2 s: the third attempt lands within seconds.
  let after = before;
  await waitFor(
    'the delivery to be counted',
    async () => {
      after = await scrape();
      return at(after, delivered) - at(before, delivered) >= 1;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  const grew = (series: string) => at(after, series) - at(before, series);
  expect(after.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(grew('webhooks_attempts_total{outcome="http_error",status_class="5xx"}')).toBe(2);
  expect(grew('webhooks_attempts_total{outcome="delivered",status_class="2xx"}')).toBe(1);
  // Durations by outcome, with buckets past the 30 s deadline.
  expect(grew('webhooks_attempt_duration_seconds_count{outcome="http_error"}')).toBe(2);
  expect(grew('webhooks_attempt_duration_seconds_count{outcome="delivered"}')).toBe(1);
  expect(after.series.has('webhooks_attempt_duration_seconds_bucket{le="35",outcome="timeout"}')).toBe(true);
  expect(after.series.has('webhooks_attempt_duration_seconds_bucket{le="60",outcome="delivered"}')).toBe(
    true,
  );
  // Both retries were taken up and measured against when they were due; none is in flight now.
  expect(grew('webhooks_retry_start_lag_seconds_count')).toBe(2);
  expect(after.series.get('webhooks_deliveries_in_flight')).toBe(0);
  expect(grew('webhooks_retries_scheduled_total')).toBe(2);
  expect(grew(delivered)).toBe(1);
  expect(grew('webhooks_delivery_latency_seconds_count')).toBe(1);
  // Publish to the 2xx spans both retry delays (1 s + 2 s).
  expect(grew('webhooks_delivery_latency_seconds_sum')).toBeGreaterThanOrEqual(3);
  // The queues, read from the emulator at scrape time.
  for (const queue of ['ingress', 'retry', 'dlq']) {
    expect(after.series.has(`webhooks_queue_depth{queue="${queue}",state="visible"}`)).toBe(true);
    expect(after.series.has(`webhooks_queue_oldest_age_seconds{queue="${queue}"}`)).toBe(true);
  }
  expect(after.text).toContain('# TYPE webhooks_attempt_duration_seconds histogram');
});

it('counts a delivery parked and then recovered once as parked and once as recovered, never a second delivered', async () => {
  const created = await createConnection('Parked then recovered', '/hooks', '--json');
  const { connectionId } = JSON.parse(created) as { connectionId: string };
  await webhooks(['connections', 'disable', connectionId]);
  // The dispatcher's cached copy of the connection expires within LOCAL_CONNECTION_CACHE_TTL_MS.
  await sleep(CACHE_WAIT_MS);
  const before = await scrape();
  const at = (s: typeof before, series: string) => s.series.get(series) ?? 0;
  let after = before;
  const grew = (series: string) => at(after, series) - at(before, series);
  const result = (r: string) => `webhooks_deliveries_total{result="${r}"}`;
  const until = (what: string, done: () => boolean) =>
    waitFor(
      what,
      async () => {
        after = await scrape();
        return done();
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );

  // Named explicitly, a disabled connection's delivery is refused and parked for it.
  await webhooks([
    'publish',
    '--application',
    APP,
    '--user-json',
    '{"id":"usr_parked","email":"p@example.com"}',
    '--connection',
    connectionId,
  ]);
  await until('the delivery to be parked', () => grew(result('parked')) >= 1);
  await webhooks(['connections', 'enable', connectionId]);
  await sleep(CACHE_WAIT_MS);
  await webhooks(['connections', 'recover', connectionId]);
  await until('the recovered delivery to be counted', () => grew(result('recovered')) >= 1);

  expect(grew(result('parked'))).toBe(1);
  expect(grew('webhooks_parked_total{reason="connection_disabled"}')).toBe(1);
  expect(grew(result('recovered'))).toBe(1);
  // One delivery, one first result: the recovery is not a second delivered.
  expect(grew(result('delivered'))).toBe(0);
  expect(grew('webhooks_attempts_total{outcome="rejected",status_class="none"}')).toBe(1);
  expect(grew('webhooks_attempts_total{outcome="delivered",status_class="2xx"}')).toBe(1);
  // Its latency counts from publish, across the park and the recovery.
  expect(grew('webhooks_delivery_latency_seconds_count')).toBe(1);
  expect(grew('webhooks_delivery_latency_seconds_sum')).toBeGreaterThanOrEqual(CACHE_WAIT_MS / 1000);
});

it('clears a poisoned dead-letter queue with dlq delete (refused without a terminal unless --yes), and the DLQ depth reads 0', async () => {
  const dlqVisible = 'webhooks_queue_depth{queue="dlq",state="visible"}';
  const sqs = new SQSClient({
    region: state.region,
    endpoint: state.endpoints.sqs,
    credentials: LOCAL_CREDENTIALS,
  });
  // Not JSON: poison on its first receipt, dead-lettered as invalid_message.
  await sqs.send(new SendMessageCommand({ QueueUrl: state.resources.queueUrl, MessageBody: 'not json' }));
  sqs.destroy();
  await waitFor(
    'the poison message to reach the DLQ',
    async () => (await scrape()).series.get(dlqVisible) === 1,
    {
      timeoutMs: 20_000,
      intervalMs: 250,
    },
  );

  const refused = await run(['dlq', 'delete', '--all']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(
    /not deleting everything in the dead-letter queue without confirmation .*--all --yes/,
  );
  expect((await scrape()).series.get(dlqVisible)).toBe(1);

  const redrive = await webhooks(['dlq', 'redrive', '--all']);
  expect(redrive).toMatch(
    /Left 1 message in the DLQ:\n {2}message \S+: malformed message \(invalid_message\)/,
  );

  const deleted = await webhooks(['dlq', 'delete', '--all', '--yes']);
  expect(deleted).toMatch(
    /Deleted 1 message from the dead-letter queue:\n {2}message \S+ \(invalid_message\)/,
  );
  expect(await webhooks(['dlq', 'list'])).toContain('The dead-letter queue is empty.');
  const after = await scrape();
  expect(after.series.get(dlqVisible)).toBe(0);
  expect(after.series.get('webhooks_queue_depth{queue="dlq",state="in_flight"}')).toBe(0);
});
