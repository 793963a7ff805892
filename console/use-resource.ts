/** One hook per resource: loading → ready | error, with reload. */

import { useCallback, useEffect, useState } from 'preact/hooks';

export type Resource<T> =
  | { state: 'loading' }
  | { state: 'ready'; data: T }
  | { state: 'error'; error: Error };

export function useResource<T>(load: () => Promise<T>, deps: unknown[]): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setResource({ state: 'loading' });
    load().then(
      (data) => current && setResource({ state: 'ready', data }),
      (error: unknown) =>
        current &&
        setResource({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return [resource, reload];
}

/**
 * A paged list's cursors, one per page walked so far: the cursor of the page shown, whether it
 * is the first, a reset, and what `Pager` needs to go newer or older. A new `key` (other filters)
 * starts again at the first page.
 */
export function useCursorPages(key = '') {
  const [cursors, setCursors] = useState<{ key: string; list: Array<string | undefined> }>({
    key,
    list: [undefined],
  });
  const list = cursors.key === key ? cursors.list : [undefined];
  return {
    cursor: list.at(-1),
    onFirstPage: list.length === 1,
    reset: () => setCursors({ key, list: [undefined] }),
    pager: {
      hasNewer: list.length > 1,
      onNewer: () => setCursors({ key, list: list.slice(0, -1) }),
      onOlder: (next: string) => setCursors({ key, list: [...list, next] }),
    },
  };
}
