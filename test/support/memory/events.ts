/** Operational events in memory: what the SNS adapter would publish, kept in order. */

import type { OperationalEvent } from '../../../lambdas/core/parking';
import type { OperationalEvents } from '../../../lambdas/core/ports';

export class MemoryEvents implements OperationalEvents {
  readonly events: OperationalEvent[] = [];

  async publish(event: OperationalEvent): Promise<void> {
    this.events.push(event);
  }
}
