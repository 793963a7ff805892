/** The demo part of `npm start`: a first event straight away, and with `--demo` the scripted tour. */

import { runDemoTour } from '../demo-tour';
import { DEMO_APPLICATION, type LocalStack } from './stack';

/** A first event, so there is something to see straight away. */
export async function publishFirstEvent(stack: LocalStack, out: (line?: string) => void): Promise<void> {
  const { eventId } = await stack.management.publisher.publishUserIdentified({
    user: {
      id: 'usr_demo_1',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      metadata: { plan: 'pro', source: 'demo' },
    },
    application: DEMO_APPLICATION,
  });
  out(`Published demo event ${eventId} to ${DEMO_APPLICATION.id}.`);
}

/** `npm run demo`: the scripted tour against the demo receiver (local/demo-tour.ts). */
export function playTour(stack: LocalStack, out: (line?: string) => void): Promise<void> {
  return runDemoTour({ management: stack.management, receiver: stack.receiver, out });
}
