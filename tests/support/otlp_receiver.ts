/**
 * A test OTLP/HTTP receiver: a local server taking `POST /v1/traces` in the
 * OTLP JSON encoding the exporter sends, keeping the raw bodies (to scan for
 * canaries) and the spans flattened with their attributes as plain values.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number };
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  bodies: string[];
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValue = { key: string; value: AnyValue };

function valueOf(v: AnyValue): unknown {
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue ?? v.doubleValue;
}

const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => body += chunk);
    request.on("end", () => {
      const ok = request.method === "POST" && request.url === "/v1/traces" &&
        request.headers["content-type"] === "application/json";
      if (ok) {
        bodies.push(body);
        for (const rs of JSON.parse(body).resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const scope of rs.scopeSpans ?? []) {
            for (const s of scope.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                start: BigInt(s.startTimeUnixNano),
                end: BigInt(s.endTimeUnixNano),
                attributes: attributesOf(s.attributes),
                events: (s.events ?? []).map((e: { name: string; attributes?: KeyValue[] }) => ({
                  name: e.name,
                  attributes: attributesOf(e.attributes),
                })),
                status: s.status ?? {},
                resource,
              });
            }
          }
        }
      }
      response.writeHead(ok ? 200 : 400, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
