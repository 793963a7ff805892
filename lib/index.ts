/** Public CDK entry: the reusable construct, the stack, and the stack's output keys. */
export * from '../lambdas/stack-outputs';
export * from './webhook-delivery';
export * from './webhook-delivery-props';
export * from './webhook-stack';
