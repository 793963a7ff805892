import { Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { RUNBOOKS, type RunbookName } from './runbooks';

/**
 * How soon an alarm needs a person (docs/operations.md#alarms): `page` when deliveries are
 * failing, late or stopped now; `ticket` when something needs an operator within a working day.
 */
export type Severity = 'page' | 'ticket';
export const SEVERITIES: readonly Severity[] = ['page', 'ticket'];

/** CloudWatch's limit on an alarm description. */
const MAX_DESCRIPTION = 1024;

/** The alarm props the factory sets itself. */
type OwnProps = 'alarmName' | 'alarmDescription' | 'actionsEnabled';

export interface AlarmRoutingProps {
  /** Topics given by the user, by severity; a missing one is created. */
  readonly topics: Partial<Record<Severity, sns.ITopic>>;
  readonly runbookBaseUrl: string;
}

/** One alarm of the construct: the alarm, how urgent it is and its runbook. */
export interface RoutedAlarm {
  readonly alarm: cloudwatch.AlarmBase;
  readonly severity: Severity;
  readonly runbook: RunbookName;
}

/**
 * Makes the construct's alarms: each with a stable name (`<stack>-<construct id>-<alarm id>`), its
 * severity and runbook link in the description, and its alarm and OK actions on the topic of
 * its severity. Window alarms of a composite notify nothing themselves.
 */
export class AlarmRouting extends Construct {
  /** Topic of each severity: the one given, or one this construct created. */
  public readonly topics: Record<Severity, sns.ITopic>;
  /** Every notifying alarm, by key (docs/operations.md#alarms lists them). */
  public readonly alarms: Record<string, RoutedAlarm> = {};
  private readonly prefix: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AlarmRoutingProps,
  ) {
    super(scope, id);
    this.prefix = `${Stack.of(scope).stackName}-${scope.node.id}`;
    const topic = (severity: Severity, name: string) =>
      props.topics[severity] ??
      new sns.Topic(this, `${name}Topic`, {
        displayName: `Webhooks ${severity} alarms (${this.prefix})`,
        enforceSSL: true,
      });
    this.topics = { page: topic('page', 'Paging'), ticket: topic('ticket', 'Ticket') };
  }

  /** The description: severity first, then what happened and what to do, then the runbook link. */
  describe(severity: Severity, runbook: RunbookName, text: string): string {
    const description = `Severity: ${severity}. ${text} Runbook: ${this.props.runbookBaseUrl}#${RUNBOOKS[runbook]}`;
    if (!Token.isUnresolved(description) && description.length > MAX_DESCRIPTION) {
      throw new Error(
        `alarm description of ${runbook} is ${description.length} characters, CloudWatch takes ${MAX_DESCRIPTION}`,
      );
    }
    return description;
  }

  /** A metric alarm, notifying the topic of its severity when it fires and when it clears. */
  alarm(
    key: string,
    id: string,
    severity: Severity,
    runbook: RunbookName,
    text: string,
    props: Omit<cloudwatch.AlarmProps, OwnProps>,
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this.node.scope!, id, {
      ...props,
      alarmName: this.name(id),
      alarmDescription: this.describe(severity, runbook, text),
    });
    return this.route(key, alarm, severity, runbook);
  }

  /** A composite alarm that fires when all of `inputs` are in ALARM, routed as {@link alarm}. */
  allOf(
    key: string,
    id: string,
    severity: Severity,
    runbook: RunbookName,
    text: string,
    inputs: cloudwatch.IAlarm[],
  ): cloudwatch.CompositeAlarm {
    const alarm = new cloudwatch.CompositeAlarm(this.node.scope!, id, {
      compositeAlarmName: this.name(id),
      alarmDescription: this.describe(severity, runbook, text),
      alarmRule: cloudwatch.AlarmRule.allOf(
        ...inputs.map((a) => cloudwatch.AlarmRule.fromAlarm(a, cloudwatch.AlarmState.ALARM)),
      ),
    });
    return this.route(key, alarm, severity, runbook);
  }

  /** An input of a composite alarm: no action of its own (the composite notifies). */
  window(id: string, of: string, props: Omit<cloudwatch.AlarmProps, OwnProps>): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this.node.scope!, id, {
      ...props,
      alarmName: this.name(id),
      alarmDescription: `Input of the composite alarm ${this.name(of)}, which notifies; this one has no action of its own.`,
    });
  }

  private name(id: string): string {
    return `${this.prefix}-${id}`;
  }

  private route<A extends cloudwatch.AlarmBase>(
    key: string,
    alarm: A,
    severity: Severity,
    runbook: RunbookName,
  ): A {
    if (this.alarms[key]) throw new Error(`two alarms with the key ${key}`);
    const action = new SnsAction(this.topics[severity]);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms[key] = { alarm, severity, runbook };
    return alarm;
  }
}
