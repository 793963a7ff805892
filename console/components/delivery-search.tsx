/**
 * "Find a delivery": one box for the three ids an operator is given. A delivery id opens the
 * delivery; an event or user id lists that event's or user's deliveries across every connection.
 */

import { useId, useState } from 'preact/hooks';
import { navigate } from '../router';
import { searchTarget } from '../search';

export function DeliverySearch() {
  const id = useId();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (event: Event) => {
    event.preventDefault();
    const target = searchTarget(text);
    if ('problem' in target) {
      setProblem(target.problem);
      return;
    }
    setProblem(undefined);
    navigate(target.to);
  };
  return (
    <form class="search" aria-label="Find a delivery" onSubmit={submit}>
      <label class="visually-hidden" for={`${id}-q`}>
        Delivery, event or user id
      </label>
      <input
        id={`${id}-q`}
        type="search"
        placeholder="dlv_…, evt_… or usr_…"
        value={text}
        spellcheck={false}
        autocomplete="off"
        aria-describedby={problem ? `${id}-problem` : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit" class="button">
        Find
      </button>
      {problem && (
        <p id={`${id}-problem`} class="form-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
