/**
 * Deliveries by outcome (stacked bars) and latency p50/p95 (lines) per time bucket, drawn as
 * inline SVG from Preact elements: no chart library, nothing but numbers from `…/stats`. Each
 * chart is drawn at the width it is shown at (one SVG unit is one CSS pixel), so its text keeps
 * its size on a phone and its tick labels are spaced for that width (console/chart-scale.ts).
 */

import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { isLabelled, labelEvery, labelWidth, RANGES, type Range, windowFor } from '../chart-scale';
import { formatDuration, OUTCOME_LABELS, timeZoneName } from '../format';
import { OUTCOMES, type Stats } from '../types';
import { useResource } from '../use-resource';
import { Empty, Failed, Loading } from './states';

/** Width until the chart is measured. */
const DEFAULT_WIDTH = 640;
const HEIGHT = 160;
const PAD = { top: 10, right: 12, bottom: 24, left: 48 };
/** Tick label size, px (as app.css sets it). */
const LABEL_PX = 11;

/** A figure that measures its own width (following resizes) and draws its chart at it. */
function MeasuredFigure({
  caption,
  draw,
  children,
}: {
  caption: string;
  draw: (width: number) => ComponentChildren;
  children?: ComponentChildren;
}) {
  const figure = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(DEFAULT_WIDTH);
  useEffect(() => {
    const element = figure.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(200, Math.floor(element.getBoundingClientRect().width)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <figure ref={figure}>
      <figcaption>
        {caption} <span class="muted small">(times in {timeZoneName()})</span>
      </figcaption>
      {draw(width)}
      {children}
    </figure>
  );
}

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

function Axis({
  width,
  max,
  format,
  whole,
}: {
  width: number;
  max: number;
  format: (v: number) => string;
  whole?: boolean;
}) {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  // Counts are whole numbers: no half-way line when it would fall between two.
  const fractions = whole && max % 2 !== 0 ? [0, 1] : [0, 0.5, 1];
  return (
    <g class="axis">
      {fractions.map((f) => {
        const y = PAD.top + plotHeight * (1 - f);
        return (
          <g key={f}>
            <line x1={PAD.left} x2={width - PAD.right} y1={y} y2={y} class="grid" />
            <text x={PAD.left - 6} y={y + 4} text-anchor="end">
              {format(max * f)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

function XLabels({ stats, step, width }: { stats: Stats; step: number; width: number }) {
  const widest = Math.max(
    0,
    ...stats.buckets.map((b) => labelWidth(bucketLabel(b.start, stats.bucketSeconds), LABEL_PX)),
  );
  const every = labelEvery(step, widest);
  return (
    <g class="axis">
      {stats.buckets.map((b, i) => {
        const x = PAD.left + step * (i + 0.5);
        // A label that would be cut by the chart's edge is left out rather than clipped.
        const fits = x - widest / 2 >= 0 && x + widest / 2 <= width;
        return fits && isLabelled(Date.parse(b.start), stats.bucketSeconds, every) ? (
          <text key={b.start} x={x} y={HEIGHT - 7} text-anchor="middle">
            {bucketLabel(b.start, stats.bucketSeconds)}
          </text>
        ) : null;
      })}
    </g>
  );
}

export function OutcomeChart({ stats, width }: { stats: Stats; width: number }) {
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(1, stats.buckets.length);
  const max = niceMax(Math.max(2, ...stats.buckets.map((b) => b.total)));
  return (
    <svg
      width={width}
      height={HEIGHT}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      class="chart"
      role="img"
      aria-label="Deliveries by outcome over time"
    >
      <Axis width={width} max={max} format={(v) => String(Math.round(v))} whole />
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
      <XLabels stats={stats} step={step} width={width} />
    </svg>
  );
}

export function LatencyChart({ stats, width }: { stats: Stats; width: number }) {
  const plotWidth = width - PAD.left - PAD.right;
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
      width={width}
      height={HEIGHT}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      class="chart"
      role="img"
      aria-label="Latency p50 and p95 over time"
    >
      <Axis width={width} max={max} format={formatDuration} />
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
      <XLabels stats={stats} step={step} width={width} />
    </svg>
  );
}

export function StatsPanel(props: { api: ApiClient; connectionId: string; refresh: number }) {
  const id = useId();
  const [range, setRange] = useState<Range>('24h');
  const [stats, reload] = useResource(
    () => props.api.stats(props.connectionId, windowFor(range, Date.now())),
    [props.connectionId, props.refresh, range],
  );
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
            <MeasuredFigure
              caption="Attempts by outcome"
              draw={(width) => <OutcomeChart stats={stats.data} width={width} />}
            >
              <ul class="legend">
                {present.map((o) => (
                  <li key={o}>
                    <span class={`swatch outcome-${o}`} aria-hidden="true" />
                    {OUTCOME_LABELS[o]}
                  </li>
                ))}
              </ul>
            </MeasuredFigure>
            <MeasuredFigure
              caption="Latency"
              draw={(width) => <LatencyChart stats={stats.data} width={width} />}
            >
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
            </MeasuredFigure>
          </div>
        </>
      )}
    </div>
  );
}
