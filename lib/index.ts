/** Public CDK entry: the reusable construct, the stack, the stack's output keys, and its monitoring. */
export * from '../lambdas/stack-outputs';
export { AlarmRouting, type RoutedAlarm, SEVERITIES, type Severity } from './alarm-routing';
export { RUNBOOKS, type RunbookName, type RunbookName as AlarmName } from './alarms';
export { WebhookDashboard } from './dashboard';
export { BURN_RATES } from './delivery-objectives';
export { FailingConnectionsRule } from './failing-connections';
export { LOG_QUERIES, type LogQueryName } from './log-queries';
export { WebhookMetrics } from './metrics';
export * from './operations-props';
export { LEAN_PROFILE, PROFILES, type ProfileName, type ProfileProps, profileProps } from './profiles';
export * from './webhook-delivery';
export * from './webhook-delivery-props';
export * from './webhook-stack';
