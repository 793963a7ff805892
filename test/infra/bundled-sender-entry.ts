// Bundled by test/infra/bundled-sender.test.ts with the Lambda options, to run the sender as deployed.
export { HttpsSender } from '../../lambdas/adapters/http/sender';
