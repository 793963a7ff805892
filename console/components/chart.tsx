/**
 * Deliveries by outcome (stacked bars) and latency p50/p95 (lines) per time bucket, drawn as
 * inline SVG from Preact elements: no chart library, nothing but numbers from `…/stats`.
 */

import { useId, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { formatDuration, OUTCOME_LABELS } from '../format';
import { OUTCOMES, type Stats, type StatsWindow } from '../types';
import { useResource } from '../use-resource';
import { Empty, Failed, Loading } from './states';

const WIDTH = 640;
const HEIGHT = 160;
const PAD = { top: 10, right: 12, bottom: 22, left: 44 };

/** The chart's time ranges and the bucket width each reads at. */
export const RANGES = {
  '1h': { label: 'Last hour', hours: 1, bucket: '5m' },
  '24h': { label: 'Last 24 hours', hours: 24, bucket: '1h' },
  '7d': { label: 'Last 7 days', hours: 24 * 7, bucket: '1d' },
} as const satisfies Record<string, { label: string; hours: number; bucket: StatsWindow['bucket'] }>;
type Range = keyof typeof RANGES;

/** A round upper bound for an axis: 1, 2, 5 × 10ⁿ. */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function bucketLabel(iso: string, bucketSeconds: number): string {
  const date = new Date(iso);
  return bucketSeconds >= 86_400
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

function Axis({ max, format, whole }: { max: number; format: (v: number) => string; whole?: boolean }) {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  // Counts are whole numbers: no half-way line when it would fall between two.
  const fractions = whole && max % 2 !== 0 ? [0, 1] : [0, 0.5, 1];
  return (
    <g class="axis">
      {fractions.map((f) => {
        const y = PAD.top + plotHeight * (1 - f);
        return (
          <g key={f}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y} y2={y} class="grid" />
            <text x={PAD.left - 6} y={y + 4} text-anchor="end">
              {format(max * f)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

function XLabels({ stats, step }: { stats: Stats; step: number }) {
  const n = stats.buckets.length;
  const every = Math.max(1, Math.ceil(n / 6));
  return (
    <g class="axis">
      {stats.buckets.map((b, i) =>
        i % every === 0 ? (
          <text key={b.start} x={PAD.left + step * (i + 0.5)} y={HEIGHT - 6} text-anchor="middle">
            {bucketLabel(b.start, stats.bucketSeconds)}
          </text>
        ) : null,
      )}
    </g>
  );
}

export function OutcomeChart({ stats }: { stats: Stats }) {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(1, stats.buckets.length);
  const max = niceMax(Math.max(2, ...stats.buckets.map((b) => b.total)));
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      class="chart"
      role="img"
      aria-label="Deliveries by outcome over time"
    >
      <Axis max={max} format={(v) => String(Math.round(v))} whole />
      {stats.buckets.map((b, i) => {
        let y = PAD.top + plotHeight;
        return (
          <g key={b.start}>
            <title>
              {`${bucketLabel(b.start, stats.bucketSeconds)}: ${
                OUTCOMES.filter((o) => b.outcomes[o])
                  .map((o) => `${b.outcomes[o]} ${OUTCOME_LABELS[o].toLowerCase()}`)
                  .join(', ') || 'no attempts'
              }`}
            </title>
            {OUTCOMES.map((o) => {
              const count = b.outcomes[o] ?? 0;
              if (!count) return null;
              const h = (count / max) * plotHeight;
              y -= h;
              return (
                <rect
                  key={o}
                  class={`bar outcome-${o}`}
                  x={PAD.left + step * i + step * 0.15}
                  width={Math.max(1, step * 0.7)}
                  y={y}
                  height={h}
                />
              );
            })}
          </g>
        );
      })}
      <XLabels stats={stats} step={step} />
    </svg>
  );
}

export function LatencyChart({ stats }: { stats: Stats }) {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(1, stats.buckets.length);
  const max = niceMax(Math.max(0, ...stats.buckets.map((b) => b.latencyMs.p95 ?? b.latencyMs.p50 ?? 0)));
  const line = (key: 'p50' | 'p95') =>
    stats.buckets
      .map((b, i) => {
        const v = b.latencyMs[key];
        if (v === undefined || v === null) return '';
        return `${PAD.left + step * (i + 0.5)},${PAD.top + plotHeight * (1 - v / max)}`;
      })
      .filter(Boolean)
      .join(' ');
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      class="chart"
      role="img"
      aria-label="Latency p50 and p95 over time"
    >
      <Axis max={max} format={formatDuration} />
      <polyline class="line p95" points={line('p95')} />
      <polyline class="line p50" points={line('p50')} />
      {stats.buckets.map((b, i) =>
        (['p95', 'p50'] as const).map((key) => {
          const v = b.latencyMs[key];
          if (v === undefined || v === null) return null;
          return (
            <circle
              key={`${b.start}${key}`}
              class={`dot ${key}`}
              cx={PAD.left + step * (i + 0.5)}
              cy={PAD.top + plotHeight * (1 - v / max)}
              r={2.5}
            >
              <title>{`${bucketLabel(b.start, stats.bucketSeconds)} ${key}: ${formatDuration(v)}`}</title>
            </circle>
          );
        }),
      )}
      <XLabels stats={stats} step={step} />
    </svg>
  );
}

export function StatsPanel(props: { api: ApiClient; connectionId: string; refresh: number }) {
  const id = useId();
  const [range, setRange] = useState<Range>('24h');
  const [stats, reload] = useResource(() => {
    const { hours, bucket } = RANGES[range];
    return props.api.stats(props.connectionId, {
      since: new Date(Date.now() - hours * 3_600_000).toISOString(),
      bucket,
    });
  }, [props.connectionId, props.refresh, range]);
  const present = stats.state === 'ready' ? OUTCOMES.filter((o) => stats.data.totals.outcomes[o]) : [];
  return (
    <div class="card">
      <div class="card-head">
        <h2>Deliveries over time</h2>
        <div class="inline-field">
          <label class="inline-label" for={`${id}-range`}>
            Range
          </label>
          <select
            class="inline-select"
            id={`${id}-range`}
            value={range}
            onChange={(e) => setRange(e.currentTarget.value as Range)}
          >
            {Object.entries(RANGES).map(([key, r]) => (
              <option key={key} value={key}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {stats.state === 'loading' && <Loading what="statistics" />}
      {stats.state === 'error' && <Failed what="statistics" error={stats.error} retry={reload} />}
      {stats.state === 'ready' && stats.data.totals.total === 0 && (
        <Empty title="Nothing to chart in this range">
          <p class="muted">The chart fills in as deliveries are attempted.</p>
        </Empty>
      )}
      {stats.state === 'ready' && stats.data.totals.total > 0 && (
        <>
          <p class="totals">
            <strong>{stats.data.totals.total}</strong>{' '}
            {stats.data.totals.total === 1 ? 'attempt' : 'attempts'}
            {present.map((o) => (
              <span key={o}>
                {' · '}
                {stats.data.totals.outcomes[o]} {OUTCOME_LABELS[o].toLowerCase()}
              </span>
            ))}
            {stats.data.totals.latencyMs.p50 !== null && (
              <span>
                {' · '}p50 {formatDuration(stats.data.totals.latencyMs.p50)}, p95{' '}
                {formatDuration(stats.data.totals.latencyMs.p95)}
              </span>
            )}
          </p>
          <div class="charts">
            <figure>
              <figcaption>Attempts by outcome</figcaption>
              <OutcomeChart stats={stats.data} />
              <ul class="legend">
                {present.map((o) => (
                  <li key={o}>
                    <span class={`swatch outcome-${o}`} aria-hidden="true" />
                    {OUTCOME_LABELS[o]}
                  </li>
                ))}
              </ul>
            </figure>
            <figure>
              <figcaption>Latency</figcaption>
              <LatencyChart stats={stats.data} />
              <ul class="legend">
                <li>
                  <span class="swatch p50" aria-hidden="true" />
                  p50
                </li>
                <li>
                  <span class="swatch p95" aria-hidden="true" />
                  p95
                </li>
              </ul>
            </figure>
          </div>
        </>
      )}
    </div>
  );
}
