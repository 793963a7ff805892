/**
 * What to do about a failed attempt, in one line, when its error says enough: an untrusted,
 * misnamed or expired certificate, or nothing listening. One copy for the CLI (`attempts get`,
 * `connections send-test`: cli/views.ts) and the web console (Send Test, a delivery's attempts):
 * it imports nothing, so the console's browser bundle can take it as it is.
 */

/** TLS errors that mean "this certificate is not one we trust" (Node's and OpenSSL's codes). */
const UNTRUSTED_CERTIFICATE =
  /\b(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED)\b/;
const WRONG_NAME = /\bERR_TLS_CERT_ALTNAME_INVALID\b/;
const EXPIRED = /\b(CERT_HAS_EXPIRED|CERT_NOT_YET_VALID)\b/;

/** The parts of an attempt the advice reads (an attempt record, or the API's view of one). */
export interface FailedAttempt {
  outcome: string;
  error?: string | undefined;
  target: string;
}

/**
 * What to do about a failed attempt; undefined when there is nothing to add. `local`: local mode,
 * whose own CA issues certificates it trusts; `suggest` writes a CLI command line with the
 * caller's target flags (`npx webhooks --local …`).
 */
export function failureAdvice(
  r: FailedAttempt,
  options: { local: boolean; suggest: (command: string) => string },
): string | undefined {
  if (r.outcome !== 'network_error' || !r.error) return undefined;
  const issue = options.suggest('certs issue --out ./certs');
  if (UNTRUSTED_CERTIFICATE.test(r.error) || WRONG_NAME.test(r.error) || EXPIRED.test(r.error)) {
    const what = WRONG_NAME.test(r.error)
      ? "the receiver's certificate is not valid for this host name"
      : EXPIRED.test(r.error)
        ? "the receiver's certificate has expired (or is not valid yet)"
        : "the receiver's certificate is not signed by a CA the dispatcher trusts";
    return options.local
      ? `${what}. Serve one from local mode's CA, which local mode trusts: ${issue} (valid for localhost, 127.0.0.1 and ::1), or start local mode with WEBHOOKS_EXTRA_CA_FILE=<your CA's PEM file>`
      : `${what}. Deliveries trust the public CAs only: serve a certificate from a public CA (e.g. Let's Encrypt) valid for the URL's host name.`;
  }
  if (/\bECONNREFUSED\b/.test(r.error)) {
    return `nothing accepts connections at ${safeOrigin(r.target)}: is the receiver running, on that port?`;
  }
  return undefined;
}

function safeOrigin(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return 'the target';
  }
}
