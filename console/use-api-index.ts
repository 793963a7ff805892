/**
 * The API's index (`GET /api/v1`, no session needed), asked once per component: it says whether
 * this is local mode, which changes the advice the console gives (the CLI command that mints a
 * link, the certificate a receiver on this machine can use).
 */

import { useEffect, useState } from 'preact/hooks';
import { apiBaseFor, fetchApiIndex } from './api';
import type { ApiIndex } from './types';

export function useApiIndex(): ApiIndex | 'loading' | 'unknown' {
  const [index, setIndex] = useState<ApiIndex | 'loading' | 'unknown'>('loading');
  useEffect(() => {
    let current = true;
    fetchApiIndex(apiBaseFor(window.location.href)).then((found) => {
      if (current) setIndex(found ?? 'unknown');
    });
    return () => {
      current = false;
    };
  }, []);
  return index;
}

/** Whether the index says local mode (false while it loads, or when it cannot be read). */
export function isLocalMode(index: ApiIndex | 'loading' | 'unknown'): boolean {
  return index !== 'loading' && index !== 'unknown' && index.mode === 'local';
}
