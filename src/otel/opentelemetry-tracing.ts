import {
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Link,
  type Tracer,
} from '@opentelemetry/api';
import type {
  CallSpanRef,
  ReconciliationStep,
  SettledToolCall,
  ToolCallTelemetry,
} from '../../activities/call-telemetry.js';
import {
  reconciliationAttributes,
  reconciliationSpanName,
  toolCallAttributes,
  toolCallSpanName,
} from './span-attributes.js';

/** The instrumentation scope of the package's spans. */
export const TRACER_NAME = 'temporal-tool-contract';

/** Options of {@link openTelemetryTracing}. */
export interface OpenTelemetryTracingOptions {
  /** Default: the global tracer provider's tracer named {@link TRACER_NAME}. */
  readonly tracer?: Tracer;
}

/**
 * Tool call telemetry on OpenTelemetry: a span per tool call attempt (`tool_call <tool>`), child of the context
 * active in the activity — the `RunActivity` span when `@temporalio/interceptors-opentelemetry` is installed, else
 * a root — and a span per reconciliation query or human resolution, linked to the call it settles. A status of
 * `failed` or `unknown` marks the span as an error (the code is in `ttc.error.code`).
 */
export function openTelemetryTracing(options: OpenTelemetryTracingOptions = {}): ToolCallTelemetry {
  const tracer = () => options.tracer ?? trace.getTracer(TRACER_NAME);
  return {
    toolCallSettled(call: SettledToolCall): CallSpanRef | null {
      const span = tracer().startSpan(
        toolCallSpanName(call.tool),
        { kind: SpanKind.INTERNAL, startTime: call.startedAtMs, attributes: toolCallAttributes(call) },
        context.active(),
      );
      if (call.status === 'failed' || call.status === 'unknown')
        span.setStatus({ code: SpanStatusCode.ERROR, ...(call.errorCode === null ? {} : { message: call.errorCode }) });
      span.end(call.endedAtMs);
      const { traceId, spanId } = span.spanContext();
      // A non-recording tracer (no SDK installed) gives an invalid context: nothing worth linking to.
      return isSpanContextValid(span.spanContext()) ? { traceId, spanId } : null;
    },
    reconciliationStep(step: ReconciliationStep): void {
      const links: Link[] =
        step.settles === null
          ? []
          : [
              {
                context: {
                  traceId: step.settles.traceId,
                  spanId: step.settles.spanId,
                  traceFlags: TraceFlags.SAMPLED,
                  isRemote: true,
                },
              },
            ];
      const span = tracer().startSpan(
        reconciliationSpanName(step),
        { kind: SpanKind.INTERNAL, startTime: step.startedAtMs, attributes: reconciliationAttributes(step), links },
        context.active(),
      );
      span.end(step.endedAtMs);
    },
  };
}
