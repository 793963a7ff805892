/**
 * Published prices the cost model uses: us-east-1, on-demand, first tier, no free tier. Each
 * with where it was read and when; docs/cost.md prints this table. Prices change: update a
 * figure with its source and date, then run `npm run cost`.
 */

/** When the sources below were read. */
export const PRICES_READ_ON = '2026-11-21';

export interface Prices {
  sqsPerMillionRequests: number;
  lambdaArmPerGbSecond: number;
  lambdaPerMillionRequests: number;
  dynamoDbPerMillionWriteUnits: number;
  dynamoDbPerMillionReadUnits: number;
  logsPerGbIngested: number;
  secretsManagerPerSecretMonth: number;
  secretsManagerPer10kCalls: number;
  dynamoDbStoragePerGbMonth: number;
  dynamoDbPitrPerGbMonth: number;
  dynamoDbProvisionedWcuHour: number;
  dataTransferOutPerGb: number;
  kmsPerKeyMonth: number;
  kmsPer10kRequests: number;
  cloudWatchAlarmPerMonth: number;
  cloudWatchCustomMetricPerMonth: number;
  cloudWatchDashboardPerMonth: number;
  contributorInsightsRulePerMonth: number;
  contributorInsightsPerMillionEvents: number;
  eventBridgeCustomEventsPerMillion: number;
  apiDestinationPerMillionInvocations: number;
  pipesPerMillionRequests: number;
  hookdeckPerMillionEvents: number;
  hookdeckTeamPlanPerMonth: number;
  svixPerMillionMessages: number;
  svixProfessionalPlanPerMonth: number;
}

export const PRICES: Prices = {
  sqsPerMillionRequests: 0.4,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  dynamoDbPerMillionWriteUnits: 0.625,
  dynamoDbPerMillionReadUnits: 0.125,
  logsPerGbIngested: 0.5,
  secretsManagerPerSecretMonth: 0.4,
  secretsManagerPer10kCalls: 0.05,
  dynamoDbStoragePerGbMonth: 0.25,
  dynamoDbPitrPerGbMonth: 0.2,
  dynamoDbProvisionedWcuHour: 0.00065,
  dataTransferOutPerGb: 0.09,
  kmsPerKeyMonth: 1,
  kmsPer10kRequests: 0.03,
  cloudWatchAlarmPerMonth: 0.1,
  cloudWatchCustomMetricPerMonth: 0.3,
  cloudWatchDashboardPerMonth: 3,
  contributorInsightsRulePerMonth: 0.5,
  contributorInsightsPerMillionEvents: 0.02,
  eventBridgeCustomEventsPerMillion: 1.0,
  apiDestinationPerMillionInvocations: 0.2,
  pipesPerMillionRequests: 0.4,
  hookdeckPerMillionEvents: 10,
  hookdeckTeamPlanPerMonth: 39,
  svixPerMillionMessages: 100,
  svixProfessionalPlanPerMonth: 490,
};

export interface PriceSource {
  item: string;
  price: string;
  /** The provider's own page. */
  page: string;
  note?: string;
}

export const PRICE_SOURCES: readonly PriceSource[] = [
  {
    item: 'SQS standard queue requests',
    price: '$0.40 per million (first 1 M a month free; every 64 KB of payload is one request)',
    page: 'https://aws.amazon.com/sqs/pricing/',
  },
  {
    item: 'Lambda duration, Arm (arm64)',
    price: '$0.0000133334 per GB-s (first 7.5 billion GB-s a month)',
    page: 'https://aws.amazon.com/lambda/pricing/',
    note: 'Includes init code outside the handler.',
  },
  {
    item: 'Lambda requests',
    price: '$0.20 per million',
    page: 'https://aws.amazon.com/lambda/pricing/',
  },
  {
    item: 'DynamoDB on-demand write request units',
    price: '$0.625 per million (Standard table class); reads $0.125 per million',
    page: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    note: 'One unit per started KB of item; a GSI the item is written to, the same again.',
  },
  {
    item: 'DynamoDB storage and point-in-time recovery',
    price:
      '$0.25 per GB-month stored (Standard table class, after 25 GB free); PITR (continuous backups) $0.20 per GB-month of table size',
    page: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    note: '100 bytes of overhead per item; PITR billed on the table size (rates not re-read).',
  },
  {
    item: 'DynamoDB provisioned write capacity',
    price: '$0.00065 per WCU-hour (Standard table class)',
    page: 'https://aws.amazon.com/dynamodb/pricing/provisioned/',
    note: 'The provisioned lever only (not re-read).',
  },
  {
    item: 'Data transfer out to the internet (EC2/Lambda)',
    price: '$0.09 per GB (first 10 TB a month, after 100 GB free a month across the account)',
    page: 'https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer',
    note: 'Responses in are free (not re-read).',
  },
  {
    item: 'AWS KMS',
    price: '$1 per customer managed key a month; $0.03 per 10,000 requests',
    page: 'https://aws.amazon.com/kms/pricing/',
    note: 'GetSecretValue decrypts with aws/secretsmanager: requests only (not re-read).',
  },
  {
    item: 'CloudWatch alarms and custom metrics',
    price:
      '$0.10 per standard-resolution alarm metric a month (an alarm on metric math is billed for each metric in it); $0.30 per custom metric a month (first 10,000; each metric name with each dimension set is one)',
    page: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  {
    item: 'CloudWatch dashboards',
    price: '$3 per dashboard a month, beyond the first 3 of an account (each up to 50 metrics)',
    page: 'https://aws.amazon.com/cloudwatch/pricing/',
    note: 'Priced as if the 3 free were used.',
  },
  {
    item: 'CloudWatch Contributor Insights (CloudWatch Logs rules)',
    price: '$0.50 per rule a month; $0.02 per million log events that match a rule',
    page: 'https://aws.amazon.com/cloudwatch/pricing/',
    note: 'Not re-read.',
  },
  {
    item: 'CloudWatch Logs ingestion (Standard class)',
    price: '$0.50 per GB',
    page: 'https://aws.amazon.com/cloudwatch/pricing/',
    note: 'First tier.',
  },
  {
    item: 'Secrets Manager',
    price: '$0.40 per secret per month; $0.05 per 10,000 API calls',
    page: 'https://aws.amazon.com/secrets-manager/pricing/',
  },
  {
    item: 'EventBridge custom events (event bus)',
    price: '$1.00 per million (every 64 KB is one event)',
    page: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  {
    item: 'EventBridge API destinations',
    price: '$0.20 per million invocations',
    page: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  {
    item: 'EventBridge Pipes',
    price: '$0.40 per million requests (after filtering, every 64 KB is one request)',
    page: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  {
    item: 'Hookdeck (Event Gateway)',
    price:
      'Team plan from $39 a month with 10,000 events; $1.00 per additional 100,000 events ("as low as $0.33 per 100k" at volume)',
    page: 'https://hookdeck.com/pricing',
    note: 'Outpost, its outbound product, is priced apart (not found).',
  },
  {
    item: 'Svix',
    price: 'Professional plan from $490 a month with 50,000 messages; $0.0001 per additional message',
    page: 'https://www.svix.com/pricing/',
    note: 'Retries are not billed.',
  },
];
