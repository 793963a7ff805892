/**
 * SQS for local mode: fauxqs, embedded. fauxqs is ESM-only, so it is loaded with a dynamic
 * `import()`; this module therefore runs under tsx or plain Node, never inside Jest's
 * CommonJS sandbox (the integration tests start it in a child process).
 *
 * `startFauxqs()` always listens on 0.0.0.0, which would put an unauthenticated queue on
 * the network; `buildApp()` lets us listen on loopback only, at the price of wiring the
 * optional SQLite persistence ourselves (below).
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_HOST } from './listen';

type Fauxqs = typeof import('fauxqs', { with: { 'resolution-mode': 'import' }});
type Stores = NonNullable<NonNullable<Parameters<Fauxqs['buildApp']>[0]>['stores']>;

export interface LocalSqs {
  /** `http://127.0.0.1:<port>`: the value for `AWS_ENDPOINT_URL_SQS`. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

export interface LocalSqsOptions {
  /** Fallback region of queue ARNs when a request carries none. */
  readonly region: string;
  /** Directory for fauxqs' SQLite file (`fauxqs.db`); in memory when absent. */
  readonly dataDir?: string;
}

export async function startLocalSqs(options: LocalSqsOptions): Promise<LocalSqs> {
  acceptWhatSqsAccepts();
  const fauxqs: Fauxqs = await import('fauxqs');
  const persistent = options.dataDir ? await persistentStores(options.dataDir) : undefined;
  const app = fauxqs.buildApp({ logger: false, defaultRegion: options.region, stores: persistent?.stores });
  if (persistent) app.addHook('onClose', async () => persistent.close());
  const endpoint = await app.listen({ port: 0, host: LOCAL_HOST });
  return { endpoint, stop: () => app.close() };
}

interface PersistenceManager {
  load(sqs: unknown, sns: unknown, s3: unknown): void;
  close(): void;
}

/**
 * The stores `startFauxqs({ dataDir })` builds, wired the same way (fauxqs 2.4.1,
 * dist/app.js): load first, then attach the persistence so loading does not write back.
 * These modules are not in fauxqs' `exports`, so they are imported by file path.
 */
async function persistentStores(dataDir: string): Promise<{ stores: Stores; close(): void }> {
  const dist = fauxqsDist();
  const load = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(join(dist, file)).href)) as T;
  const [{ PersistenceManager }, { SqsStore }, { SnsStore }, { S3Store }] = await Promise.all([
    load<{ PersistenceManager: new (dir: string) => PersistenceManager }>('persistence.js'),
    load<{ SqsStore: new () => Stores['sqsStore'] }>('sqs/sqsStore.js'),
    load<{ SnsStore: new () => Stores['snsStore'] }>('sns/snsStore.js'),
    load<{ S3Store: new () => Stores['s3Store'] }>('s3/s3Store.js'),
  ]);
  const persistence = new PersistenceManager(dataDir);
  const stores: Stores = { sqsStore: new SqsStore(), snsStore: new SnsStore(), s3Store: new S3Store() };
  persistence.load(stores.sqsStore, stores.snsStore, stores.s3Store);
  const attach = (target: object) => Object.assign(target, { persistence });
  attach(stores.sqsStore);
  attach(stores.snsStore);
  attach(stores.s3Store);
  for (const queue of stores.sqsStore.allQueues()) attach(queue);
  return { stores, close: () => persistence.close() };
}

/** fauxqs' dist directory, found the way Node finds the package (its `exports` hide the path). */
function fauxqsDist(): string {
  for (const dir of require.resolve.paths('fauxqs') ?? []) {
    const dist = join(dir, 'fauxqs', 'dist');
    if (existsSync(join(dist, 'persistence.js'))) return dist;
  }
  throw new Error('fauxqs is not installed (or its layout changed): cannot enable SQS persistence');
}

/**
 * fauxqs 2.4.1 checks message bodies against the characters SQS allows with a regular
 * expression that lacks the `u` flag, so it reads a character outside the Basic Multilingual
 * Plane (an emoji) as two lone surrogates and refuses it, where real SQS accepts #x10000 to
 * #x10FFFF. Local mode must accept what SQS accepts (a user name with an emoji is published
 * and retried like any other), so the module that declares the expression is rewritten as it
 * loads: the same ranges plus the astral planes, matched by code point. If fauxqs changes the
 * expression, starting fails with this message rather than refusing such bodies silently.
 */
const SQS_TYPES_MODULE = '/fauxqs/dist/sqs/sqsTypes.js';
export const FAUXQS_BODY_CHARACTERS = '/[^\\x09\\x0A\\x0D\\x20-\\uD7FF\\uE000-\\uFFFD]/;';
export const SQS_BODY_CHARACTERS = '/[^\\x09\\x0A\\x0D\\x20-\\uD7FF\\uE000-\\uFFFD\\u{10000}-\\u{10FFFF}]/u;';
let hooked = false;

function acceptWhatSqsAccepts(): void {
  if (hooked) return;
  hooked = true;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (!url.replaceAll('\\', '/').endsWith(SQS_TYPES_MODULE)) return loaded;
      const source = String(loaded.source);
      if (!source.includes(FAUXQS_BODY_CHARACTERS)) {
        throw new Error(
          `local SQS: fauxqs no longer declares ${FAUXQS_BODY_CHARACTERS} in ${SQS_TYPES_MODULE}; ` +
            'check that it accepts characters outside the BMP as SQS does, then update local/fauxqs.ts',
        );
      }
      return { ...loaded, source: source.replace(FAUXQS_BODY_CHARACTERS, SQS_BODY_CHARACTERS) };
    },
  });
}
