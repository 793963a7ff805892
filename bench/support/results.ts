/** The shape of bench-results/*.json (and of bench/baseline-figures.json). */

import type { ApiCallFigures } from '../api-calls';
import type { BatchTimeFigures } from '../batch-time';
import type { BilledFigures } from '../billed/figures';
import type { BodyStorageFigures } from '../body-storage';
import type { ColdStartFigures } from '../cold-start';
import type { ConsoleBundleFigures } from '../console-bundle';
import type { EndToEndFigures } from '../end-to-end';
import type { RateLimitFigures } from '../rate-limit';
import type { VolumeFigures } from '../volume';

export interface BenchResults {
  version: 1;
  startedAt: string;
  /** A `--quick` run: fewer rounds, a smoke test rather than figures to publish. */
  quick: boolean;
  node: string;
  machine: { cpus: number; model: string };
  durationSeconds?: number;
  endToEnd?: EndToEndFigures;
  coldStart?: ColdStartFigures;
  volume?: VolumeFigures;
  consoleBundle?: ConsoleBundleFigures;
  apiCalls?: ApiCallFigures;
  /**
   * The same with `secretStore: 'kms'`: the KMS calls of that store (docs/design.md §5 "The KMS
   * secret store").
   */
  apiCallsKms?: ApiCallFigures;
  batchTime?: BatchTimeFigures;
  /** (9) A burst to one rate-limited connection (issue 25). */
  rateLimit?: RateLimitFigures;
  /**
   * (10) Request bodies kept on the first attempt's record (issue 23, docs/design.md §5 "The
   * request is kept").
   */
  bodyStorage?: BodyStorageFigures;
  /** (11) What Lambda bills under its CPU share, defaults and lean profile (issue 26). */
  billed?: BilledFigures;
}
