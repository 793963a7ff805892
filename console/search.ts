/** Where the console's "Find a delivery" box sends what is typed into it. */

import { href } from './routes';

/** Where a search for `text` goes, or why it cannot go anywhere. */
export function searchTarget(text: string): { to: string } | { problem: string } {
  const value = text.trim();
  if (/^dlv_[0-9A-HJKMNP-TV-Z]{26}_con_[A-Za-z0-9_-]{1,64}$/.test(value)) return { to: href.delivery(value) };
  if (/^evt_[A-Za-z0-9_-]{1,128}$/.test(value)) return { to: href.deliveries({ eventId: value }) };
  if (/^usr_[A-Za-z0-9_-]{1,128}$/.test(value)) return { to: href.deliveries({ userId: value }) };
  return {
    problem: value
      ? 'Not an id this console knows: paste a delivery id (dlv_…), an event id (evt_…) or a user id (usr_…).'
      : 'Paste a delivery id (dlv_…), an event id (evt_…) or a user id (usr_…).',
  };
}
