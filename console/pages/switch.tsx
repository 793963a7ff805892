/** A link for another application arrived in a tab signed in to one: ask before switching. */

import { useEffect, useId, useRef } from 'preact/hooks';

export function SwitchQuestion(props: {
  current: string;
  offered: string;
  onSwitch: () => void;
  onStay: () => void;
}) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section
      class="card switch"
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-what`}
    >
      <h1 id={`${id}-title`} tabIndex={-1} ref={heading}>
        Switch application?
      </h1>
      <p id={`${id}-what`}>
        This link opens <strong class="mono">{props.offered}</strong>. This tab is signed in to{' '}
        <strong class="mono">{props.current}</strong>.
      </p>
      <p class="muted">
        Switch only if you meant to open {props.offered}: a link opens the application of whoever made it.
      </p>
      <div class="actions">
        <button type="button" class="button" onClick={props.onSwitch}>
          Switch to {props.offered}
        </button>
        <button type="button" class="button primary" onClick={props.onStay}>
          Stay in {props.current}
        </button>
      </div>
    </section>
  );
}
