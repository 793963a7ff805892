// Bundled by test/infra/undici-lambda.test.ts with the Lambda options, to run the sender as deployed.
export { UndiciSender } from '../../lambdas/adapters/http/sender';
