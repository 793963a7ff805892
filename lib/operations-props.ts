import { Duration, Token } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { ConfigurationError } from '../lambdas/core/errors';

/**
 * Where the alarms' runbook links point by default: docs/operations.md of this project's
 * repository on GitHub (package.json `repository`; a test keeps the two the same).
 */
export const DEFAULT_RUNBOOK_BASE_URL =
  'https://github.com/serverless-webhooks/serverless-webhooks/blob/main/docs/operations.md';

/** The delivery objectives' window: the budget the burn rates are measured against. */
export const OBJECTIVE_WINDOW = Duration.days(30);

/** Log levels that still write the WARN line of every failed attempt, which the failing-connections rule counts. */
export const COUNTED_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN'] as const;

/**
 * Delivery objectives (docs/operations.md#delivery-objectives): the share of deliveries that
 * must reach a final `delivered`, and the share that must be delivered within a latency, over
 * 30 days, each alarmed by multi-window burn rates.
 */
export interface DeliveryObjectives {
  /** Share of deliveries (final results) that end `delivered`, above 0 and below 1. @default 0.995 */
  readonly successTarget?: number;
  /** Share of delivered deliveries that arrive within `latencyThreshold`, above 0 and below 1. @default 0.99 */
  readonly latencyTarget?: number;
  /**
   * Publish-to-2xx time (the `DeliveryLatency` metric) a delivery must beat to count as fast.
   * Whole seconds, 1 s to 1 hour. Retries are included: the spec's 1, 2 and 4 s make 7 s.
   * @default Duration.seconds(30)
   */
  readonly latencyThreshold?: Duration;
}

/** Who gets told, and the operator-facing settings of the alarms. Part of {@link WebhookDeliveryProps}. */
export interface OperationsProps {
  /**
   * SNS topic of the `page` alarms: the pipeline is failing its purpose now (docs/operations.md#alarms).
   * @default - a topic the construct creates (stack output `PagingTopicArn`), or `alarmTopic` when given
   */
  readonly pagingTopic?: ITopic;
  /**
   * SNS topic of the `ticket` alarms: something needs an operator within a working day.
   * @default - a topic the construct creates (stack output `TicketTopicArn`), or `alarmTopic` when given
   */
  readonly ticketTopic?: ITopic;
  /**
   * Base URL of the alarms' runbook links; each alarm's description ends with
   * `<runbookBaseUrl>#<anchor of its runbook>`. Point it at your own copy of docs/operations.md.
   * @default DEFAULT_RUNBOOK_BASE_URL (this project's docs/operations.md on GitHub)
   */
  readonly runbookBaseUrl?: string;
  /**
   * The traffic-stopped alarm fires when no event was published to the ingress queue for this
   * long (whole minutes, 15 minutes to 1 day); `false` turns it off, as a stack with quiet
   * hours or no connections yet should.
   * @default Duration.hours(3)
   */
  readonly trafficStoppedAfter?: Duration | false;
  /**
   * Messages visible on the ingress and retry queues together for 15 minutes before the
   * queue-depth alarm fires (1 to 10,000,000).
   * @default 10000
   */
  readonly queueDepthAlarmThreshold?: number;
  /**
   * The delivery objectives and their burn-rate alarms; `false` leaves those alarms out.
   * @default - 99.5 % delivered, 99 % of them within 30 seconds, over 30 days
   */
  readonly deliveryObjectives?: DeliveryObjectives | false;
}

/** {@link OperationsProps} with every default applied (the topics are resolved by the construct). */
export interface ResolvedOperationsProps {
  readonly runbookBaseUrl: string;
  readonly trafficStoppedAfter: Duration | undefined;
  readonly queueDepthAlarmThreshold: number;
  readonly deliveryObjectives: Required<DeliveryObjectives> | undefined;
}

/**
 * An invalid operations prop; `resolveProps` turns it into a `WebhookDeliveryPropsError` naming
 * the same prop and problem.
 */
export class OperationsPropsError extends ConfigurationError {
  override readonly name = 'OperationsPropsError';
  constructor(
    readonly prop: keyof OperationsProps | 'logLevel',
    readonly problem: string,
  ) {
    super('invalid_prop', `WebhookDelivery: ${prop} ${problem}`);
  }
}

function share(key: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0 && value < 1)) {
    throw new OperationsPropsError(
      'deliveryObjectives',
      `${key} must be more than 0 and less than 1 (e.g. 0.995), got ${value}`,
    );
  }
  return value;
}

function minutesIn(prop: keyof OperationsProps, d: Duration, min: number, max: number): Duration {
  const s = d.toSeconds();
  if (s % 60 !== 0 || s < min * 60 || s > max * 60) {
    throw new OperationsPropsError(
      prop,
      `must be whole minutes from ${min} to ${max}, got ${d.toHumanString()}`,
    );
  }
  return d;
}

/**
 * Applies the defaults of the operations props and checks them, naming the prop.
 * @throws OperationsPropsError
 */
export function resolveOperationsProps(props: OperationsProps): ResolvedOperationsProps {
  const url = props.runbookBaseUrl ?? DEFAULT_RUNBOOK_BASE_URL;
  if (!Token.isUnresolved(url) && !/^https:\/\/[^\s#]+$/.test(url)) {
    throw new OperationsPropsError(
      'runbookBaseUrl',
      `must be an https:// URL without a #fragment, got "${url}"`,
    );
  }
  const stopped = props.trafficStoppedAfter ?? Duration.hours(3);
  const depth = props.queueDepthAlarmThreshold ?? 10_000;
  if (!Number.isInteger(depth) || depth < 1 || depth > 10_000_000) {
    throw new OperationsPropsError(
      'queueDepthAlarmThreshold',
      `must be a whole number from 1 to 10000000, got ${depth}`,
    );
  }
  const o = props.deliveryObjectives ?? {};
  return {
    runbookBaseUrl: url,
    trafficStoppedAfter:
      stopped === false ? undefined : minutesIn('trafficStoppedAfter', stopped, 15, 24 * 60),
    queueDepthAlarmThreshold: depth,
    deliveryObjectives:
      o === false
        ? undefined
        : {
            successTarget: share('successTarget', o.successTarget ?? 0.995),
            latencyTarget: share('latencyTarget', o.latencyTarget ?? 0.99),
            latencyThreshold: latencyThreshold(o.latencyThreshold ?? Duration.seconds(30)),
          },
  };
}

function latencyThreshold(d: Duration): Duration {
  const s = d.toMilliseconds() / 1000;
  if (!Number.isInteger(s) || s < 1 || s > 3600) {
    throw new OperationsPropsError(
      'deliveryObjectives',
      `latencyThreshold must be whole seconds from 1 second to 1 hour, got ${d.toHumanString()}`,
    );
  }
  return d;
}

/**
 * The dispatcher log level must keep the WARN lines of failed attempts: the failing-connections
 * Contributor Insights rule, the fleet failure alarm and the dashboard's top failing
 * connections count them, and would read zero at ERROR and above.
 * @throws OperationsPropsError
 */
export function checkCountedLogLevel(level: string): void {
  if (!(COUNTED_LOG_LEVELS as readonly string[]).includes(level)) {
    throw new OperationsPropsError(
      'logLevel',
      `must be one of ${COUNTED_LOG_LEVELS.join(', ')}, got "${level}": at ERROR and above the failed-attempt ` +
        'WARN lines are not written, and the fleet failure alarm and the top failing connections (which count ' +
        'them) would read zero',
    );
  }
}
