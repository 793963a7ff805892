/**
 * Output keys of the webhook stack. The CLI, local tooling and deploy scripts find the
 * stack's resources by these keys (`aws cloudformation describe-stacks`), so they are a
 * public interface: renaming one breaks every tool that reads it. Runtime code (the management
 * library) reads them and lib/ writes them, so they live here and lib/ imports them: a Lambda
 * bundle never pulls in the CDK construct.
 */
export const STACK_OUTPUTS = {
  /** URL of the ingress queue that upstream services publish events to (events only). */
  queueUrl: 'QueueUrl',
  /** URL of the internal retry queue (retries, attempt records; dispatcher and operators only). */
  retryQueueUrl: 'RetryQueueUrl',
  /** URL of the dead-letter queue: poison messages and infrastructure failures (deliveries that fail are parked). */
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  /** Name of the DynamoDB table of webhook connections. */
  connectionsTableName: 'ConnectionsTableName',
  /** Name of the DynamoDB attempt log table. */
  attemptsTableName: 'AttemptsTableName',
  /** Secrets Manager name prefix of the connection secrets (ends with `/`). */
  secretPrefix: 'SecretPrefix',
  /**
   * Where connection secrets are kept: `secrets-manager` or `kms` (docs/design.md §5 "The KMS
   * secret store").
   */
  secretStore: 'SecretStore',
  /** ARN of the KMS key that seals connection secrets; only with the `kms` store. */
  secretKeyArn: 'SecretKeyArn',
  /** Name of the dispatcher Lambda function. */
  dispatcherFunctionName: 'DispatcherFunctionName',
  /** Prefix of the service headers, e.g. `X-Service` for `X-Service-Signature`. */
  headerPrefix: 'HeaderPrefix',
  /** Destination ports connections may use, comma-separated (e.g. `443`). */
  allowedPorts: 'AllowedPorts',
  /** Name of the DynamoDB table of parked deliveries (docs/design.md §9). */
  parkedTableName: 'ParkedTableName',
  /** Name of the DynamoDB table of per-connection rate windows (the live "waiting for the rate limit"). */
  rateWindowsTableName: 'RateWindowsTableName',
  /** Deliveries per second for a connection with no `rateLimit` of its own; only when the stack sets one. */
  defaultRateLimit: 'DefaultRateLimit',
  rateLimitCeiling: 'RateLimitCeiling',
  /** Seconds a rotated-out secret keeps signing by default (the construct's `secretRotationOverlap`). */
  secretRotationOverlapSeconds: 'SecretRotationOverlapSeconds',
  /** `on` or `off`: deliveries findable by user and event id (docs/cost.md "Delivery search"). */
  deliverySearch: 'DeliverySearch',
  /** ARN of the SNS topic of operational events (connection.failing, .disabled, .recovered). */
  eventsTopicArn: 'EventsTopicArn',
  /** Name of the Contributor Insights rule over failed attempts, keyed on the connection (`webhooks stats`). */
  failingConnectionsRuleName: 'FailingConnectionsRuleName',
  /** The `Stack` dimension value of the stack's `Webhooks` metrics (the enclosing stack's name). */
  metricsStackName: 'MetricsStackName',
  /** ARN of the SNS topic of the `page` alarms (docs/operations.md#alarms). */
  pagingTopicArn: 'PagingTopicArn',
  /** ARN of the SNS topic of the `ticket` alarms. */
  ticketTopicArn: 'TicketTopicArn',
} as const;

/** One of the stack's output keys. */
export type StackOutputKey = (typeof STACK_OUTPUTS)[keyof typeof STACK_OUTPUTS];

/** Outputs of the management API and console; present unless the construct turns them off. */
export const MANAGEMENT_API_OUTPUTS = {
  /** Base URL of the management HTTP API; the console is at `<url>/console/`. */
  apiUrl: 'ManagementApiUrl',
  /** ARN of the secret holding the key that signs console sessions. */
  consoleKeySecret: 'ConsoleSessionKeySecret',
} as const;
