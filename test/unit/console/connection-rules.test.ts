import {
  checkConnectionForm,
  fieldOf,
  LOCAL_HTTPS_HINT,
  parseRateLimit,
  plainFieldError,
} from '../../../console/connection-rules';

describe('the connection form in plain words', () => {
  it('finds every broken simple rule at once, before sending', () => {
    expect(checkConnectionForm({ name: ' ', url: 'http://crm.example.com', headers: '[1]' }).errors).toEqual({
      name: expect.stringMatching(/^Name is required/),
      url: 'URL must start with https://',
      headers: expect.stringMatching(/JSON object/),
    });
    expect(checkConnectionForm({ name: 'CRM', url: '', headers: '' }).errors).toEqual({
      url: expect.stringMatching(/^URL is required/),
    });
    expect(checkConnectionForm({ name: 'CRM', url: 'crm.example.com', headers: '' }).errors.url).toBe(
      'URL must start with https://',
    );
    expect(checkConnectionForm({ name: 'CRM', url: 'https://exa mple.com', headers: '' }).errors.url).toMatch(
      /not a complete address/,
    );
  });

  it("points an http:// URL to local mode's certificate, in local mode only", () => {
    const http = { name: 'CRM', url: 'http://localhost:8080/hooks', headers: '' };
    expect(LOCAL_HTTPS_HINT).toContain('npx webhooks --local certs issue');
    expect(checkConnectionForm(http, { local: true }).errors.url).toBe(LOCAL_HTTPS_HINT);
    expect(checkConnectionForm(http, { local: false }).errors.url).toBe('URL must start with https://');
    expect(checkConnectionForm({ ...http, url: 'localhost:8080' }, { local: true }).errors.url).toBe(
      'URL must start with https://',
    );
    const refusal = 'url: must use https:, got http:';
    expect(plainFieldError('url', refusal, { url: http.url, local: true })).toBe(LOCAL_HTTPS_HINT);
    expect(plainFieldError('url', refusal, { url: http.url })).toBe('URL must start with https://');
  });

  it('passes a valid form with its headers; null keeps a hidden value only when editing', () => {
    const values = { name: 'CRM', url: 'https://crm.example.com/h', headers: '{"X-Team":"crm"}' };
    expect(checkConnectionForm(values)).toEqual({ errors: {}, headers: { 'X-Team': 'crm' } });
    const keep = { ...values, headers: '{"X-Key":null}' };
    expect(checkConnectionForm(keep).errors.headers).toMatch(/string value/);
    expect(checkConnectionForm(keep, { editing: true })).toEqual({ errors: {}, headers: { 'X-Key': null } });
  });

  it("says the API's field errors as sentences", () => {
    expect(plainFieldError('url', 'url: must use https:, got http:')).toBe('URL must start with https://');
    expect(plainFieldError('name', 'name: is required: a friendly name for the webhook')).toBe(
      'Name is required',
    );
    expect(plainFieldError('url', 'url: port 8443 is not allowed (allowed: 443)')).toBe(
      'URL not accepted: port 8443 is not allowed (allowed: 443)',
    );
    expect(plainFieldError('headers.Host', 'headers.Host: is set by the sender')).toBe(
      'Header "Host" not accepted: is set by the sender',
    );
  });
});

describe('the rate limit field', () => {
  it('takes blank (none) or a whole number from 1 to 10000, and says what is wrong otherwise', () => {
    expect(parseRateLimit('')).toEqual({ value: null });
    expect(parseRateLimit(' 50 ')).toEqual({ value: 50 });
    expect(parseRateLimit('10000')).toEqual({ value: 10_000 });
    for (const raw of ['0', '10001', '2.5', 'fast', '-3'])
      expect(parseRateLimit(raw)).toHaveProperty('error');
    const { errors } = checkConnectionForm({
      name: 'x',
      url: 'https://a.example',
      headers: '',
      rateLimit: '0',
    });
    expect(errors).toEqual({ rateLimit: expect.stringMatching(/^Rate limit must be a whole number/) });
    expect(fieldOf('rateLimit')).toBe('rateLimit');
  });
});
