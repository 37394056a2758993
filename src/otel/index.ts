// The `./otel` entry point: tool call spans on OpenTelemetry (`@opentelemetry/api`, an optional peer dependency).
// Pass `openTelemetryTracing()` as the plugin's `telemetry`; a worker that does not import this pays nothing.
export { openTelemetryTracing, TRACER_NAME, type OpenTelemetryTracingOptions } from './opentelemetry-tracing.js';
export { SPAN_ATTRIBUTES, toolCallSpanName, reconciliationSpanName } from './span-attributes.js';
export type {
  ToolCallTelemetry,
  CallSpanRef,
  SettledToolCall,
  ReconciliationStep,
} from '../../activities/call-telemetry.js';
