/**
 * The billed benchmark's receiver population: `origins` HTTPS servers on loopback (one origin
 * each), spread over `processes` processes other than the capped containers', each server
 * with a keep-alive idle timeout drawn from RECEIVER_KEEP_ALIVE (arithmetic.ts).
 */

import { spawnReady } from '../../test/support/child';
import { pkiFiles, testPki } from '../../test/support/pki';
import { seeded } from '../batch-time';
import { drawKeepAliveS } from './arithmetic';
import type { ReceiversReady, ReceiversStats } from './receivers-process';

export interface ReceiverPopulation {
  ports: number[];
  /** Each origin's keep-alive timeout, s, in the order of `ports`. */
  keepAliveS: number[];
  /** Totals over the processes, from their latest once-a-second report. */
  stats(): ReceiversStats['stats'];
  stop(): Promise<void>;
}

export async function startPopulation(
  origins: number,
  processes: number,
  seed: number,
): Promise<ReceiverPopulation> {
  const random = seeded(seed);
  const keepAliveS = Array.from({ length: origins }, () => drawKeepAliveS(random()));
  const files = pkiFiles(testPki());
  const per = Math.ceil(origins / processes);
  const latest: Array<ReceiversStats['stats']> = [];
  const children: Array<Awaited<ReturnType<typeof spawnReady<ReceiversReady>>>> = [];
  try {
    for (let p = 0; p < processes; p++) {
      const share = keepAliveS.slice(p * per, (p + 1) * per);
      const child = await spawnReady<ReceiversReady>('bench/billed/receivers-process.ts', [], {
        env: {
          ...process.env,
          BENCH_TLS_CERT_FILE: files.certFile,
          BENCH_TLS_KEY_FILE: files.keyFile,
          BILLED_KEEP_ALIVE_S: JSON.stringify(share),
        },
      });
      latest[p] = { handshakes: 0, resumed: 0, requests: 0 };
      child.onLine((line) => {
        latest[p] = (JSON.parse(line) as ReceiversStats).stats;
      });
      children.push(child);
    }
  } catch (error) {
    await Promise.all(children.map((c) => c.stop()));
    files.remove();
    throw error;
  }
  return {
    ports: children.flatMap((c) => c.ready.ports),
    keepAliveS,
    stats: () => ({
      handshakes: latest.reduce((s, x) => s + x.handshakes, 0),
      resumed: latest.reduce((s, x) => s + x.resumed, 0),
      requests: latest.reduce((s, x) => s + x.requests, 0),
    }),
    async stop() {
      await Promise.all(children.map((c) => c.stop()));
      files.remove();
    },
  };
}
