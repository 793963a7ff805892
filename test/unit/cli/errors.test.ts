import { CliError, debugEnabled, reasonFor, UsageError } from '../../../cli/errors';
import { StackNotFoundError } from '../../../lambdas/adapters/cloudformation/stack';
import { DestinationRefusedError, ValidationError } from '../../../lambdas/core/errors';
import { ConflictError, NotFoundError } from '../../../lambdas/management';

function named(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name }, extra);
}

describe('the reason printed after "webhooks: "', () => {
  it('names the field of a validation error', () => {
    expect(reasonFor(new ValidationError('url', 'must use https:, got http:'))).toBe(
      'url: must use https:, got http:',
    );
  });

  it('names the way out of a refused port', () => {
    const refused = new DestinationRefusedError('port 8443 is not allowed (allowed: 443)');
    expect(reasonFor(refused)).toBe(
      "url: port 8443 is not allowed (allowed: 443); a deployed stack allows the ports of the construct's allowedPorts property (its AllowedPorts output)",
    );
    expect(reasonFor(refused, { local: true })).toBe(
      'url: port 8443 is not allowed (allowed: 443); local mode reaches any port on localhost, 127.0.0.1 and [::1] (other hosts: npm start -- --allow-port N)',
    );
  });

  it("points a refused http:// URL at local mode's certificates, in local mode only", () => {
    const http = new ValidationError('url', 'must use https:, got http:');
    expect(reasonFor(http, { local: true })).toBe(
      "url: must use https:, got http:; serve the receiver over https with a certificate from local mode's CA, which the pipeline trusts: npx webhooks --local certs issue --out ./certs (valid for localhost, 127.0.0.1 and ::1)",
    );
    expect(reasonFor(http, { stack: 'Prod', region: 'eu-west-1' })).toBe('url: must use https:, got http:');
  });

  it('uses the flag name where the API field differs', () => {
    expect(reasonFor(new ValidationError('applicationId', 'is required and must look like app_<id>'))).toBe(
      'application: is required and must look like app_<id>',
    );
  });

  it('says which connection does not exist, and passes conflicts through', () => {
    expect(reasonFor(new NotFoundError('connection', 'con_x'))).toBe('connection con_x does not exist');
    expect(reasonFor(new ConflictError('connection con_x changed meanwhile; try again'))).toBe(
      'connection con_x changed meanwhile; try again',
    );
  });

  it('points a usage error at the help', () => {
    expect(reasonFor(new UsageError('unknown flag --nme', 'npx webhooks connections create --help'))).toBe(
      'unknown flag --nme; see: npx webhooks connections create --help',
    );
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new CliError('x').exitCode).toBe(1);
  });

  it('explains missing credentials, with the profile when one was named', () => {
    const error = named('CredentialsProviderError', 'Could not load credentials from any providers');
    expect(reasonFor(error)).toMatch(/^no AWS credentials found; use --profile NAME/);
    expect(reasonFor(error, { profile: 'ops' })).toMatch(/^no AWS credentials from profile ops;/);
  });

  it('sees through the stack lookup to the credentials problem behind it', () => {
    const cause = named('CredentialsProviderError', 'Could not load credentials from any providers');
    const error = new StackNotFoundError('Webhooks', cause.message, { cause });
    expect(reasonFor(error)).toMatch(/^no AWS credentials found/);
  });

  it('says how to pick another stack when the stack is missing', () => {
    const cause = named('ValidationError', 'Stack with id Webhooks does not exist');
    const error = new StackNotFoundError('Webhooks', cause.message, { cause });
    expect(reasonFor(error)).toBe(
      'stack Webhooks: Stack with id Webhooks does not exist (pick the stack with --stack NAME and --region, or use --local for local mode)',
    );
  });

  it('names a missing region and AWS refusals', () => {
    expect(reasonFor(new Error('Region is missing'))).toBe('no AWS region; use --region or set AWS_REGION');
    expect(
      reasonFor(named('AccessDeniedException', 'User x is not authorized to perform dynamodb:Query')),
    ).toBe('AWS refused the request: User x is not authorized to perform dynamodb:Query');
    expect(reasonFor(named('ExpiredTokenException', 'expired'))).toMatch(/^the AWS credentials have expired/);
  });

  it('tells a local-mode user that npm start is not answering', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' });
    expect(reasonFor(refused, { local: true })).toBe(
      'cannot reach local mode (connection refused); is `npm start` still running?',
    );
    const wrapped = new Error('request failed', { cause: refused });
    expect(reasonFor(wrapped, { local: false })).toBe(
      'cannot reach the service (ECONNREFUSED): request failed',
    );
  });

  it('is always exactly one line', () => {
    expect(reasonFor(new Error('first\n  second\nthird'))).toBe('first second third');
    expect(reasonFor('a string')).toBe('a string');
  });
});

describe('stack traces', () => {
  it('are printed only with DEBUG=webhooks (or *)', () => {
    expect(debugEnabled({})).toBe(false);
    expect(debugEnabled({ DEBUG: 'express' })).toBe(false);
    expect(debugEnabled({ DEBUG: 'webhooks' })).toBe(true);
    expect(debugEnabled({ DEBUG: 'express, webhooks' })).toBe(true);
    expect(debugEnabled({ DEBUG: '*' })).toBe(true);
  });
});
