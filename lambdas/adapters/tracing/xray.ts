/**
 * The tracing port on AWS X-Ray, through Powertools for AWS Lambda's Tracer (docs/design.md §10
 * "Traces"): one subsegment per attempt under the invocation's segment, which Lambda's active
 * tracing links to the SQS message that carried the delivery. Loaded only when the dispatcher runs
 * with `tracing` on (lambdas/dispatcher/index.ts imports this file dynamically), so an untraced
 * dispatcher neither loads nor runs any of it.
 *
 * The attempt record keeps the trace id only when the invocation is sampled (`Sampled=1` in
 * `_X_AMZN_TRACE_ID`): an unsampled trace is never stored in X-Ray, so its id would lead nowhere.
 * When the event carried its publisher's trace (core/trace-context.ts), the span names it
 * (`publisherTraceId`, searchable) and keeps the whole `traceparent` as metadata: X-Ray cannot
 * re-parent a Lambda's segment, so the link is recorded on the span.
 *
 * Nothing of a trace leaves for a receiver: the Tracer is built with `captureHTTPsRequests`
 * off, so it patches neither `node:https` nor `fetch`, and no `X-Amzn-Trace-Id` (or
 * `traceparent`) header joins a delivery. A span carries ids and the outcome as annotations,
 * never a URL, a header, the body, an error's text or a secret.
 */

import { Tracer } from '@aws-lambda-powertools/tracer';
import type { AttemptSpan, SpanIds, Tracing } from '../../core/ports';
import { xrayTraceIdOf } from '../../core/trace-context';

/** The subsegment's name: X-Ray groups and filters by it. */
export const ATTEMPT_SPAN = 'webhook attempt';

/** The part of Powertools' Tracer the adapter uses (a test passes its own). */
export interface TracerLike {
  getSegment(): SegmentLike | undefined;
  getRootXrayTraceId(): string | undefined;
  /** `Sampled=1` in the invocation's trace header. */
  isTraceSampled(): boolean;
}

export interface SegmentLike {
  addNewSubsegment(name: string): SubsegmentLike;
}

export interface SubsegmentLike {
  addAnnotation(key: string, value: string | number | boolean): void;
  addMetadata(key: string, value: unknown): void;
  addErrorFlag(): void;
  close(): void;
}

const NO_SPAN: AttemptSpan = { end() {} };

/** Powertools' Tracer as the dispatcher needs it: no HTTP patching, no response or error capture. */
export function dispatcherTracer(): TracerLike {
  return new Tracer({ serviceName: 'webhook-dispatcher', captureHTTPsRequests: false });
}

export function xrayTracing(tracer: TracerLike = dispatcherTracer()): Tracing {
  return {
    attempt(ids: SpanIds, publisher?: string): AttemptSpan {
      const parent = tracer.getSegment();
      if (!parent) return NO_SPAN; // outside an invocation's segment: nothing to hang a span on
      const span = parent.addNewSubsegment(ATTEMPT_SPAN);
      span.addAnnotation('connectionId', ids.connectionId);
      span.addAnnotation('deliveryId', ids.deliveryId);
      span.addAnnotation('attempt', ids.attempt);
      if (publisher) {
        span.addAnnotation('publisherTraceId', xrayTraceIdOf(publisher));
        span.addMetadata('traceparent', publisher);
      }
      const traceId = tracer.isTraceSampled() ? tracer.getRootXrayTraceId() : undefined;
      return {
        ...(traceId ? { traceId } : {}),
        end(outcome, error) {
          if (outcome) span.addAnnotation('outcome', outcome);
          // The error's name only: its message may quote a receiver or a store.
          if (error !== undefined) {
            span.addAnnotation('error', error instanceof Error ? error.name : 'unknown');
            span.addErrorFlag();
          }
          span.close();
        },
      };
    },
  };
}
