/**
 * Published prices the cost model uses: us-east-1, on-demand, first tier, no free tier. Each
 * with where it was read and when; docs/cost.md prints this table. Prices change: update a
 * figure with its source and date, then run `npm run cost`.
 */

/** When the sources below were read. */
export const PRICES_READ_ON = '2026-11-21';

export const PRICES = {
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
  dynamoDbProvisionedRcuHour: 0.00013,
  dataTransferOutPerGb: 0.09,
  kmsPerKeyMonth: 1,
  kmsPer10kRequests: 0.03,
  xrayPerMillionTracesRecorded: 5,
  xrayPerMillionTracesRetrieved: 0.5,
  cloudWatchAlarmPerMonth: 0.1,
  cloudWatchCompositeAlarmPerMonth: 0.5,
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
export type Prices = typeof PRICES;

/** Where each price was read, for docs/cost.md: the provider's own page. */
export const PRICE_SOURCES = `| item | price | source |
|---|---|---|
| SQS standard queue requests | $0.40 per million (first 1 M a month free; every 64 KB of payload is one request) | https://aws.amazon.com/sqs/pricing/ |
| Lambda duration, Arm (arm64) | $0.0000133334 per GB-s (first 7.5 billion GB-s a month). Includes init code outside the handler. | https://aws.amazon.com/lambda/pricing/ |
| Lambda requests | $0.20 per million | https://aws.amazon.com/lambda/pricing/ |
| DynamoDB on-demand write request units | $0.625 per million (Standard table class); reads $0.125 per million. One unit per started KB of item; a GSI the item is written to, the same again. | https://aws.amazon.com/dynamodb/pricing/on-demand/ |
| DynamoDB storage and point-in-time recovery | $0.25 per GB-month stored (Standard table class, after 25 GB free); PITR (continuous backups) $0.20 per GB-month of table size. 100 bytes of overhead per item; PITR billed on the table size (rates not re-read). | https://aws.amazon.com/dynamodb/pricing/on-demand/ |
| DynamoDB provisioned capacity | $0.00065 per WCU-hour, $0.00013 per RCU-hour (Standard table class). The \`attemptLogCapacity\` prop only (not re-read). | https://aws.amazon.com/dynamodb/pricing/provisioned/ |
| Data transfer out to the internet (EC2/Lambda) | $0.09 per GB (first 10 TB a month, after 100 GB free a month across the account). Responses in are free (not re-read). | https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer |
| AWS KMS | $1 per customer managed key a month; $0.03 per 10,000 requests. GetSecretValue decrypts with aws/secretsmanager, the tables' encryption at rest with aws/dynamodb: requests only (not re-read). | https://aws.amazon.com/kms/pricing/ |
| CloudWatch alarms and custom metrics | $0.10 per standard-resolution alarm metric a month (an alarm on metric math is billed for each metric in it); $0.50 per composite alarm a month; $0.30 per custom metric a month (first 10,000; each metric name with each dimension set is one) | https://aws.amazon.com/cloudwatch/pricing/ |
| CloudWatch dashboards | $3 per dashboard a month, beyond the first 3 of an account (each up to 50 metrics). Priced as if the 3 free were used. | https://aws.amazon.com/cloudwatch/pricing/ |
| CloudWatch Contributor Insights (CloudWatch Logs rules) | $0.50 per rule a month; $0.02 per million log events that match a rule. Not re-read. | https://aws.amazon.com/cloudwatch/pricing/ |
| AWS X-Ray | $5.00 per million traces recorded, $0.50 per million retrieved or scanned (after 100,000 recorded and 1 M retrieved free a month) | https://aws.amazon.com/xray/pricing/ |
| CloudWatch Logs ingestion (Standard class) | $0.50 per GB. First tier. | https://aws.amazon.com/cloudwatch/pricing/ |
| Secrets Manager | $0.40 per secret per month; $0.05 per 10,000 API calls | https://aws.amazon.com/secrets-manager/pricing/ |
| EventBridge custom events (event bus) | $1.00 per million (every 64 KB is one event) | https://aws.amazon.com/eventbridge/pricing/ |
| EventBridge API destinations | $0.20 per million invocations | https://aws.amazon.com/eventbridge/pricing/ |
| EventBridge Pipes | $0.40 per million requests (after filtering, every 64 KB is one request) | https://aws.amazon.com/eventbridge/pricing/ |
| Hookdeck (Event Gateway) | Team plan from $39 a month with 10,000 events; $1.00 per additional 100,000 events ("as low as $0.33 per 100k" at volume). Outpost, its outbound product, is priced apart (not found). | https://hookdeck.com/pricing |
| Svix | Professional plan from $490 a month with 50,000 messages; $0.0001 per additional message. Retries are not billed. | https://www.svix.com/pricing/ |`;
