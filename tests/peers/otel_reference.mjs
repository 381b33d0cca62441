// OpenTelemetry's official JS SDK sends a reference trace to an OTLP/HTTP JSON receiver: a run of two spans shaped
// as the engine's are (a root INTERNAL `invoke_workflow` span and a failed CLIENT `chat` span under it), with
// attributes of every kind the engine sends. The tests compare the body's shape with the engine's.
//   node otel_reference.mjs TRACES_URL
import { trace, SpanKind, SpanStatusCode, context } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';

const [url] = process.argv.slice(2);
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'reference' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
});
const tracer = provider.getTracer('reference', '1.0.0');

const root = tracer.startSpan('invoke_workflow triage', {
  kind: SpanKind.INTERNAL,
  attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.usage.input_tokens': 12 },
});
const chat = tracer.startSpan('chat gpt-4o', {
  kind: SpanKind.CLIENT,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.stream': true,
    'gen_ai.request.temperature': 0.5,
    'gen_ai.response.finish_reasons': ['stop'],
  },
}, trace.setSpan(context.active(), root));
chat.setStatus({ code: SpanStatusCode.ERROR, message: 'it failed' });
chat.setAttribute('error.type', 'llm.http_error');
chat.end();
root.end();
await provider.shutdown();
