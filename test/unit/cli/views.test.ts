import { failureAdvice, outcomeDetail } from '../../../cli/views';

const suggest = (command: string) => `npx webhooks --local ${command}`;
const failed = (error: string) => ({
  outcome: 'network_error' as const,
  error,
  target: 'https://localhost:8443/hooks',
});

describe('what a failed attempt tells the operator', () => {
  // Node's generic CA hint is dropped where the error is made (the sender; test/integration/http-sender.test.ts).
  it('says network error once: the error itself, without the outcome name before it', () => {
    const detail = outcomeDetail({
      ...failed('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate'),
      durationMs: 3,
    });
    expect(detail).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
  });

  it.each([
    'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    'SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate',
  ])('points an untrusted certificate (%s) at certs issue in local mode', (error) => {
    const advice = failureAdvice(failed(error), { local: true, suggest });
    expect(advice).toContain('not signed by a CA the dispatcher trusts');
    expect(advice).toContain('npx webhooks --local certs issue --out ./certs');
  });

  it('tells a deployed stack to use a public CA, and names a wrong host name or an expired certificate', () => {
    expect(failureAdvice(failed('SELF_SIGNED_CERT_IN_CHAIN: x'), { local: false, suggest })).toContain(
      'public CA',
    );
    expect(failureAdvice(failed('ERR_TLS_CERT_ALTNAME_INVALID: x'), { local: true, suggest })).toContain(
      'not valid for this host name',
    );
    expect(failureAdvice(failed('CERT_HAS_EXPIRED: x'), { local: true, suggest })).toContain('has expired');
  });

  it('says nothing listens when the connection is refused, and nothing when there is nothing to add', () => {
    expect(
      failureAdvice(failed('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8443'), { local: true, suggest }),
    ).toBe('nothing accepts connections at localhost:8443: is the receiver running, on that port?');
    expect(failureAdvice(failed('ECONNRESET: socket hang up'), { local: true, suggest })).toBeUndefined();
    expect(
      failureAdvice({ outcome: 'http_error', error: 'x', target: 'https://a' }, { local: true, suggest }),
    ).toBeUndefined();
  });
});
