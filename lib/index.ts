/** Public CDK entry: the reusable construct, the stack, the stack's output keys, and its monitoring. */
export * from '../lambdas/stack-outputs';
export { type AlarmName, RUNBOOKS } from './alarms';
export { WebhookDashboard } from './dashboard';
export { FailingConnectionsRule } from './failing-connections';
export { WebhookMetrics } from './metrics';
export { LEAN_PROFILE, PROFILES, type ProfileName, type ProfileProps, profileProps } from './profiles';
export * from './webhook-delivery';
export * from './webhook-delivery-props';
export * from './webhook-stack';
