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
