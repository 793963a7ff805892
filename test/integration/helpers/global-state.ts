/** Where global-setup leaves the emulators' child process for global-teardown (same Jest process). */
export const EMULATORS_KEY = '__WEBHOOKS_EMULATORS_PROCESS__';
