import { startTargetServer, type TargetServer } from './target-server.js';

/** One span as an OTLP/HTTP JSON export carries it, with its resource's `service.name`. */
export interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a span that starts its trace. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan extends Omit<ExportedSpan, 'service' | 'attributes' | 'links' | 'parentSpanId'> {
  parentSpanId?: string;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const valueOf = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? '';
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** A local OTLP/HTTP receiver (JSON): a collector standing in for a tracing backend. */
export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: spans are posted to `${url}/v1/traces`. */
  url: string;
  server: TargetServer;
  /** Every span posted so far, in the order received. */
  spans(): ExportedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const server = await startTargetServer();
  server.handle((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{}');
  });
  return {
    url: server.url,
    server,
    spans: () =>
      server.received
        .filter((r) => r.method === 'POST' && r.url === '/v1/traces')
        .flatMap((r) =>
          (JSON.parse(r.body) as OtlpExport).resourceSpans.flatMap((rs) => {
            const service = String(attributesOf(rs.resource.attributes)['service.name']);
            return rs.scopeSpans.flatMap((ss) =>
              ss.spans.map((s) => ({ ...s, service, parentSpanId: s.parentSpanId ?? '', attributes: attributesOf(s.attributes), links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })) })),
            );
          }),
        ),
    close: () => server.close(),
  };
}
