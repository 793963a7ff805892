/**
 * The dispatcher's metrics as CloudWatch Embedded Metric Format: fields that, merged into a
 * JSON log line Lambda writes to CloudWatch Logs, become a metric with no PutMetricData call
 * (docs/security.md, "BlockedDestinations").
 */

import type { Metrics } from '../../core/ports';
import { METRICS_NAMESPACE } from './catalogue';

export const emfMetrics: Metrics = {
  blockedDestination(atMs) {
    return {
      _aws: {
        Timestamp: atMs,
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [[]],
            Metrics: [{ Name: 'BlockedDestinations', Unit: 'Count' }],
          },
        ],
      },
      BlockedDestinations: 1,
    };
  },
  rateLimitDeferral(atMs) {
    return {
      _aws: {
        Timestamp: atMs,
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [[]],
            Metrics: [{ Name: 'RateLimitDeferrals', Unit: 'Count' }],
          },
        ],
      },
      RateLimitDeferrals: 1,
    };
  },
};
