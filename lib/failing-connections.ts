import { Names, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FAILED_OUTCOMES, METRIC_PERIOD } from './metrics';

/**
 * The log field every failed attempt's WARN line carries (`attempt failed; retry scheduled`,
 * `delivery parked`, `delivery dead-lettered`), with `outcome` one of {@link FAILED_OUTCOMES}.
 */
export const CONNECTION_ID_FIELD = 'connectionId';
/** The log field holding the attempt's outcome. */
export const OUTCOME_FIELD = 'outcome';

/**
 * A Contributor Insights rule over the dispatcher's failed-attempt log lines, keyed on the
 * connection: the top failing connections (the dashboard) and how many distinct connections
 * are failing (the fleet failure alarm), with no connection id ever a metric dimension.
 */
export class FailingConnectionsRule extends Construct {
  /** The rule's name, as `INSIGHT_RULE_METRIC` and the console know it. */
  public readonly ruleName: string;
  public readonly rule: cloudwatch.CfnInsightRule;

  constructor(scope: Construct, id: string, logGroup: logs.ILogGroup) {
    super(scope, id);
    // Unique in the account and region, and known at synth time (metric math names the rule).
    this.ruleName = Names.uniqueResourceName(this, { maxLength: 128, separator: '-' });
    this.rule = new cloudwatch.CfnInsightRule(this, 'Resource', {
      ruleName: this.ruleName,
      ruleState: 'ENABLED',
      ruleBody: Stack.of(this).toJsonString({
        Schema: { Name: 'CloudWatchLogRule', Version: 1 },
        LogGroupNames: [logGroup.logGroupName],
        LogFormat: 'JSON',
        Contribution: {
          Keys: [`$.${CONNECTION_ID_FIELD}`],
          Filters: [{ Match: `$.${OUTCOME_FIELD}`, In: [...FAILED_OUTCOMES] }],
        },
        AggregateOn: 'Count',
      }),
    });
  }

  /** `INSIGHT_RULE_METRIC` of this rule: `UniqueContributors` (distinct failing connections), `Sum`, … */
  expression(metric: 'UniqueContributors' | 'Sum' | 'MaxContributorValue'): string {
    return `INSIGHT_RULE_METRIC('${this.ruleName}', '${metric}')`;
  }

  /** Distinct connections with a failed attempt per period. */
  failingConnections(label = 'Connections with a failed attempt'): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: this.expression('UniqueContributors'),
      usingMetrics: {},
      period: METRIC_PERIOD,
      label,
    });
  }
}
