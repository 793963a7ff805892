import { ConfigError, ENV, loadConfig } from '../lambdas/config';
import { type WebhookDeliveryProps, WebhookDeliveryPropsError } from './webhook-delivery-props';

/**
 * Every setting the dispatcher reads from its environment, except the local-mode loopback
 * flag: a deployed stack must never be able to set it.
 */
export type DeployedSetting = Exclude<keyof typeof ENV, 'allowLoopback' | 'queueUrl'>;

/** The deployed settings as the environment strings the dispatcher parses. */
export type DispatcherSettings = Readonly<Record<DeployedSetting, string>>;

/** The prop each setting comes from, to name it when the dispatcher would refuse a value. */
const PROP_OF_SETTING: Partial<Record<DeployedSetting, keyof WebhookDeliveryProps>> = {
  secretPrefix: 'secretPrefix',
  secretStore: 'secretStore',
  headerPrefix: 'headerPrefix',
  attemptTimeoutMs: 'attemptTimeout',
  attemptTtlDays: 'attemptTtl',
  deliveredTtlDays: 'deliveredAttemptTtl',
  keepBodies: 'keepBodies',
  deliverySearch: 'deliverySearch',
  batchConcurrency: 'batchConcurrency',
  defaultRateLimit: 'defaultRateLimit',
  rateLimitCeiling: 'rateLimitCeiling',
  connectionCacheTtlMs: 'connectionCacheTtl',
  allowedPorts: 'allowedPorts',
  failingAfter: 'failingAfter',
  disableAfter: 'disableAfter',
  dedupeEvents: 'dedupeEvents',
  recoveryProbes: 'recoveryProbes',
};

/**
 * Maps the settings to the dispatcher's environment variable names (lambdas/config.ts)
 * and checks them with the dispatcher's own `loadConfig`, so a stack that deploys is a
 * stack whose dispatcher starts.
 * @throws WebhookDeliveryPropsError naming the prop whose value the dispatcher would refuse.
 */
export function dispatcherEnvironment(settings: DispatcherSettings): Record<string, string> {
  const keys = Object.keys(settings) as DeployedSetting[];
  const env = Object.fromEntries(keys.map((key) => [ENV[key], settings[key]]));
  try {
    loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const setting = keys.find((key) => ENV[key] === error.key);
    const prop = setting && PROP_OF_SETTING[setting];
    if (!prop) throw error; // a resource reference the construct itself sets: a bug, not a prop
    throw new WebhookDeliveryPropsError(prop, `would be refused by the dispatcher: ${error.message}`, {
      cause: error,
    });
  }
  return env;
}
