/**
 * What the console's connection page and `webhooks connections get` say about recovery checks
 * (docs/operations.md "Recovery checks"), in one place so both say the same. Pure and without
 * imports: the console's bundle takes it as it is. `time` formats an ISO time for the reader.
 */

/** The probe fields of a connection's health (core/health.ts). */
export interface RecoveryFields {
  downSince?: string;
  nextCheckAt?: string;
}

/** What parked deliveries wait for when a connection's own recovery checks are off. */
export const RECOVERY_OFF =
  'Automatic recovery is off for this connection: parked deliveries wait for Recover.';

/**
 * One line for an operator, or undefined when the endpoint is not down and no check waits.
 * `probesOff`: the connection's `recoveryProbes` is false. A check stored before it was turned
 * off is not made (core/probes.ts notProbed), so its time is never shown.
 */
export function recoveryStatus(
  health: RecoveryFields | undefined,
  time: (iso: string) => string,
  options: { probesOff?: boolean } = {},
): string | undefined {
  if (!health) return undefined;
  const { downSince, nextCheckAt } = health;
  if (options.probesOff) {
    if (downSince) return `Endpoint down since ${time(downSince)}. ${RECOVERY_OFF}`;
    return nextCheckAt ? RECOVERY_OFF : undefined;
  }
  if (downSince && nextCheckAt) {
    return `Endpoint down since ${time(downSince)}, next check at ${time(nextCheckAt)}: the oldest parked delivery is sent again, and if it arrives the rest follow, oldest first.`;
  }
  if (nextCheckAt) {
    return `Endpoint answering again, next check at ${time(nextCheckAt)}: parked deliveries are being sent again, oldest first.`;
  }
  if (downSince) {
    return `Endpoint down since ${time(downSince)}; no automatic check is scheduled (the checks ran out, are off, or the connection is disabled by hand): recover by hand once it works.`;
  }
  return undefined;
}
