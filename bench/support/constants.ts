/**
 * Numbers of the deployed stack that the benchmark and the cost model mirror. They are
 * copied, not imported, so that neither loads aws-cdk-lib; the cold-start measurement,
 * which loads the construct anyway, checks they still agree (see cold-start.ts).
 */

/** lib/webhook-delivery-props.ts BATCH_SIZE: records per invocation. */
export const BATCH_SIZE = 10;
/** lib/webhook-delivery-props.ts `memorySize` default, MiB. */
export const DEFAULT_MEMORY_MB = 256;
/** lambdas/core/constants.ts ATTEMPT_TIMEOUT_MS, ms. */
export { ATTEMPT_TIMEOUT_MS } from '../../lambdas/core/constants';
