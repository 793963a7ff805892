import { CfnOutput, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ATTEMPTS_TABLE, CONNECTIONS_TABLE, PARKED_TABLE } from '../lambdas/adapters/dynamodb/tables';
import { API_ENV } from '../lambdas/api-config';
import { ENV } from '../lambdas/config';
import { ConfigurationError } from '../lambdas/core/errors';
import { MANAGEMENT_API_OUTPUTS } from '../lambdas/stack-outputs';
import { functionLogging } from './function-logging';
import { LAMBDA_HANDLER, lambdaCode } from './lambda-code';
import { API_ERRORS_QUERY, savedQuery } from './log-queries';
import type { ConnectionSecretStore } from './secret-store';

/** Default steady-state requests per second of the management API (a console, not a data plane). */
export const DEFAULT_API_RATE_LIMIT = 25;
/** Default burst of the management API. */
export const DEFAULT_API_BURST_LIMIT = 50;
/** API Gateway HTTP APIs end an integration after 30 s, so the Lambda must answer before. */
const API_GATEWAY_TIMEOUT = Duration.seconds(30);
/** A Send Test must finish, its attempt record written, before API Gateway gives up. */
const TEST_SEND_DEADLINE = Duration.seconds(25);
/** Where the console files sit inside the Lambda bundle. */
const CONSOLE_BUNDLE_DIR = 'console';
/** Characters of a generated console signing key (letters and digits: ~380 bits). */
const SESSION_KEY_LENGTH = 64;

export interface ManagementApiOptions {
  /**
   * Serve the web console at `/console/` (docs/design.md §8). Turned off, the API still answers.
   * @default true
   */
  readonly console?: boolean;
  /**
   * Steady-state requests per second the API accepts before answering 429.
   * @default 25
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the API accepts in a burst before answering 429.
   * @default 50
   */
  readonly throttlingBurstLimit?: number;
}

/** What {@link WebhookManagementApi} needs of the delivery construct it manages. */
export interface ManagedResources {
  readonly queueUrl: string;
  readonly queueArn: string;
  /** The internal retry queue: where a Send Test defers an attempt record it cannot write. */
  readonly retryQueueUrl: string;
  readonly retryQueueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly connectionsTableName: string;
  readonly connectionsTableArn: string;
  readonly attemptsTableName: string;
  readonly attemptsTableArn: string;
  /** Parked deliveries: listed, retried and recovered through the API (docs/design.md §9). */
  readonly parkedTableName: string;
  readonly parkedTableArn: string;
  /** The rate-limit windows: read (never written) for a connection's live "waiting for the rate limit". */
  readonly rateWindowsTableName: string;
  readonly rateWindowsTableArn: string;
  /** The stack's default rate limit, deliveries per second; absent: none. */
  readonly defaultRateLimit?: number;
  /** The highest rate limit a tenant may set, deliveries per second. */
  readonly rateLimitCeiling: number;
  /** Deliveries findable by user and event id (`deliverySearch`). */
  readonly deliverySearch: boolean;
  /** The dispatcher checks a down endpoint by itself (`recoveryProbes` not false): the API's index says so. */
  readonly recoveryChecks: boolean;
  /** Where enabling a disabled connection publishes `connection.recovered`. */
  readonly eventsTopic: ITopic;
  readonly secretPrefix: string;
  /** The connection secrets: the store's settings and grants. */
  readonly secrets: ConnectionSecretStore;
  readonly headerPrefix: string;
  readonly allowedPorts: readonly number[];
  readonly attemptTimeout: Duration;
  readonly attemptTtl: Duration;
  readonly connectionCacheTtl: Duration;
  /** How long a rotated-out secret keeps signing by default (0: not at all). */
  readonly secretRotationOverlap: Duration;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Active X-Ray tracing of the Lambda (the delivery's `tracing` prop): its invocations only, no SDK. */
  readonly tracing?: boolean;
}

export interface WebhookManagementApiProps extends ManagementApiOptions {
  readonly resources: ManagedResources;
}

/** Thrown for a management API option that is out of range. */
export class ManagementApiPropsError extends ConfigurationError {
  override readonly name = 'ManagementApiPropsError';
  constructor(
    readonly prop: keyof ManagementApiOptions,
    problem: string,
  ) {
    super('invalid_prop', `managementApi.${prop}: ${problem}`);
  }
}

function positiveLimit(
  prop: 'throttlingRateLimit' | 'throttlingBurstLimit',
  value: number | undefined,
  fallback: number,
) {
  if (value === undefined) return fallback;
  if (!Token.isUnresolved(value) && (!Number.isInteger(value) || value < 1 || value > 10_000)) {
    throw new ManagementApiPropsError(prop, `must be a whole number from 1 to 10000, got ${value}`);
  }
  return value;
}

/**
 * The management HTTP API and web console (docs/design.md §8): an API Gateway HTTP API with one
 * catch-all route to one management Lambda, throttled, with access logs; the key that signs
 * console sessions in Secrets Manager. The Lambda checks every session itself (Bearer tokens),
 * so the routes carry no API Gateway authorizer.
 */
export class WebhookManagementApi extends Construct {
  public readonly api: apigw.HttpApi;
  public readonly stage: apigw.HttpStage;
  public readonly handler: lambda.Function;
  public readonly role: iam.Role;
  /** The key that signs console sessions (a generated 64-character string). */
  public readonly sessionKey: secretsmanager.Secret;
  public readonly logGroup: logs.LogGroup;
  /** The saved Logs Insights query of the API's error lines (`<stack>/webhooks/management API errors`). */
  public readonly errorsQuery: logs.QueryDefinition;
  public readonly accessLogGroup: logs.LogGroup;
  /** Base URL of the API (no trailing slash); the console is at `<url>/console/`. */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: WebhookManagementApiProps) {
    super(scope, id);
    const r = props.resources;
    const rateLimit = positiveLimit('throttlingRateLimit', props.throttlingRateLimit, DEFAULT_API_RATE_LIMIT);
    const burstLimit = positiveLimit(
      'throttlingBurstLimit',
      props.throttlingBurstLimit,
      DEFAULT_API_BURST_LIMIT,
    );
    const withConsole = props.console ?? true;

    this.sessionKey = new secretsmanager.Secret(this, 'ConsoleSessionKey', {
      description: 'Signs console sessions of the webhooks management API (HS256)',
      generateSecretString: {
        passwordLength: SESSION_KEY_LENGTH,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Webhooks management API: connections, their secrets, test sends, the attempt log',
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: r.logRetention,
      removalPolicy: r.removalPolicy,
    });
    this.logGroup.grantWrite(this.role);
    this.grant(this.role, r);

    this.handler = new lambda.Function(this, 'Handler', {
      description: 'Webhooks management API and console',
      // The bundle carries the console's built files in console/ (scripts/bundle-lambdas.mjs).
      code: lambdaCode('api'),
      handler: LAMBDA_HANDLER,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: API_GATEWAY_TIMEOUT,
      memorySize: 512,
      role: this.role,
      logGroup: this.logGroup,
      // JSON records, so the saved query below reads the error lines' fields.
      ...functionLogging('INFO'),
      ...(r.tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
      environment: {
        [ENV.queueUrl]: r.queueUrl,
        [ENV.retryQueueUrl]: r.retryQueueUrl,
        [ENV.dlqUrl]: r.deadLetterQueueUrl,
        [ENV.connectionsTable]: r.connectionsTableName,
        [ENV.attemptsTable]: r.attemptsTableName,
        [ENV.parkedTable]: r.parkedTableName,
        [ENV.rateWindowsTable]: r.rateWindowsTableName,
        ...(r.defaultRateLimit !== undefined ? { [ENV.defaultRateLimit]: String(r.defaultRateLimit) } : {}),
        [ENV.rateLimitCeiling]: String(r.rateLimitCeiling),
        [ENV.deliverySearch]: String(r.deliverySearch),
        ...(r.recoveryChecks ? {} : { [ENV.recoveryProbes]: 'off' }),
        [ENV.eventsTopicArn]: r.eventsTopic.topicArn,
        [ENV.secretPrefix]: r.secretPrefix,
        ...r.secrets.environment(),
        [ENV.headerPrefix]: r.headerPrefix,
        [ENV.allowedPorts]: r.allowedPorts.join(','),
        [ENV.attemptTimeoutMs]: String(
          Math.min(r.attemptTimeout.toMilliseconds(), TEST_SEND_DEADLINE.toMilliseconds()),
        ),
        [ENV.attemptTtlDays]: String(r.attemptTtl.toDays()),
        [ENV.connectionCacheTtlMs]: String(r.connectionCacheTtl.toMilliseconds()),
        [API_ENV.consoleKeySecret]: this.sessionKey.secretArn,
        [API_ENV.consoleDir]: withConsole ? `/var/task/${CONSOLE_BUNDLE_DIR}` : 'off',
        [API_ENV.secretRotationOverlap]: String(r.secretRotationOverlap.toSeconds()),
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    // Where the 5xx alarm's runbook looks first (docs/operations.md).
    this.errorsQuery = savedQuery(this, 'ErrorsQuery', API_ERRORS_QUERY, [this.logGroup]);

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: r.logRetention,
      removalPolicy: r.removalPolicy,
    });
    this.api = new apigw.HttpApi(this, 'HttpApi', {
      description: 'Webhooks management API and console',
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('Management', this.handler, {
        payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      }),
    });
    this.stage = new apigw.HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit, burstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        // Paths carry application and connection ids, never a token (it travels in a header).
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    const stack = Stack.of(this);
    this.url = `https://${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
  }

  /** Least privilege: what the management library calls, on the resources it calls it on. */
  private grant(role: iam.IGrantable, r: ManagedResources): void {
    const on = (actions: string[], resourceArns: string[]) =>
      iam.Grant.addToPrincipal({ grantee: role, actions, resourceArns });
    on(
      [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ],
      [r.connectionsTableArn],
    );
    on(['dynamodb:Query'], [`${r.connectionsTableArn}/index/${CONNECTIONS_TABLE.byApplicationIndex.name}`]);
    // Reads of the log are Queries; a Send Test records its own attempt; a Resend marks the
    // delivery's last attempt (resentAs) with a conditional UpdateItem.
    on(['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [r.attemptsTableArn]);
    on(
      ['dynamodb:Query'],
      [ATTEMPTS_TABLE.finalFailuresIndex.name, ATTEMPTS_TABLE.byTimeIndex.name].map(
        (index) => `${r.attemptsTableArn}/index/${index}`,
      ),
    );
    r.secrets.grantOperate(role);
    on(['secretsmanager:GetSecretValue'], [this.sessionKey.secretArn]);
    // Parked deliveries: listing (table and index), retry and recover (claim, then remove).
    on(
      ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      [r.parkedTableArn],
    );
    on(['dynamodb:Query'], [`${r.parkedTableArn}/index/${PARKED_TABLE.byApplicationIndex.name}`]);
    // A connection's last minute of rate-limit windows (the console's "waiting for the rate limit").
    on(['dynamodb:BatchGetItem'], [r.rateWindowsTableArn]);
    r.eventsTopic.grantPublish(role);
    // A Send Test whose attempt record cannot be written defers it to the retry queue, like the
    // dispatcher (whose queue policy names this role too); recoveries and retries re-queue
    // parked deliveries there. The API publishes no events to the ingress queue.
    on(['sqs:SendMessage'], [r.retryQueueArn]);
  }

  /** Adds the API URL and the session key's ARN as stack outputs. */
  public addOutputs(scope: Construct): void {
    new CfnOutput(scope, MANAGEMENT_API_OUTPUTS.apiUrl, {
      value: this.url,
      description: 'Management API base URL; the web console is at <url>/console/',
    });
    new CfnOutput(scope, MANAGEMENT_API_OUTPUTS.consoleKeySecret, {
      value: this.sessionKey.secretArn,
      description: 'Secret holding the key that signs console sessions',
    });
  }
}
