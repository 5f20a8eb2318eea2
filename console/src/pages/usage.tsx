import { api, type Schemas } from "../api.ts";
import { BarChart } from "../components/bar_chart.tsx";
import { SessionPicker } from "../components/session_picker.tsx";
import { count, money } from "../format.ts";
import { useLoad } from "../load.ts";
import { MonthUsage } from "./month_usage.tsx";

type Report = Schemas["UsageReport"];

const tokensOf = (e: { input_tokens?: number; output_tokens?: number }) =>
  (e.input_tokens ?? 0) + (e.output_tokens ?? 0);

interface Row {
  label: string;
  requests: number;
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
  cost?: string;
}

/**
 * A cache count: the report leaves out a zero one, so it reads 0 where input
 * was reported, and like input where it was not (sealed or never reported).
 */
const cached = (n: number | undefined, input: number | undefined) =>
  count(n ?? (input === undefined ? undefined : 0));

/** The exact figures of one breakdown, as the report wrote them. */
function BreakdownTable(
  { caption, first, rows, currency }: {
    caption: string;
    first: string;
    rows: Row[];
    currency: string;
  },
) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">Requests</th>
          <th scope="col">Input tokens</th>
          <th scope="col">Read from cache</th>
          <th scope="col">Written to cache</th>
          <th scope="col">Output tokens</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <th scope="row">{r.label}</th>
            <td>{r.requests}</td>
            <td>{count(r.input)}</td>
            <td>{cached(r.cacheRead, r.input)}</td>
            <td>{cached(r.cacheWrite, r.input)}</td>
            <td>{count(r.output)}</td>
            <td>{r.cost === undefined ? "sealed" : money(r.cost, currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Tables({ report }: { report: Report }) {
  const row = (
    label: string,
    e: {
      request_count: number;
      input_tokens?: number;
      cache_read_tokens?: number;
      cache_write_tokens?: number;
      output_tokens?: number;
      estimated_cost?: string;
    },
  ): Row => ({
    label,
    requests: e.request_count,
    input: e.input_tokens,
    cacheRead: e.cache_read_tokens,
    cacheWrite: e.cache_write_tokens,
    output: e.output_tokens,
    cost: e.estimated_cost,
  });
  const currency = report.total.currency;
  return (
    <>
      <BreakdownTable
        caption="By model"
        first="Model"
        currency={currency}
        rows={report.by_model.map((m) => row(`${m.provider}/${m.model}`, m))}
      />
      <BreakdownTable
        caption="By task type"
        first="Task type"
        currency={currency}
        rows={report.by_task_type.map((t) => row(t.task_type, t))}
      />
    </>
  );
}

function Charts({ report }: { report: Report }) {
  const { total } = report;
  // Encrypted sessions seal the figures: only request counts are readable.
  if (total.estimated_cost === undefined) {
    return (
      <div class="charts">
        <BarChart
          title="Requests by model"
          unit="requests"
          total={String(report.by_model.reduce((n, m) => n + m.request_count, 0))}
          bars={report.by_model.map((m) => ({
            label: `${m.provider}/${m.model}`,
            value: m.request_count,
          }))}
        />
      </div>
    );
  }
  const totalTokens = String(total.total_tokens ?? tokensOf(total));
  return (
    <div class="charts">
      <BarChart
        title="Tokens by model"
        unit="tokens"
        total={totalTokens}
        bars={report.by_model.map((m) => ({
          label: `${m.provider}/${m.model}`,
          value: m.total_tokens ?? tokensOf(m),
        }))}
      />
      <BarChart
        title="Cost by model"
        unit={total.currency}
        total={total.estimated_cost}
        bars={report.by_model.map((m) => ({
          label: `${m.provider}/${m.model}`,
          value: Number(m.estimated_cost ?? "0"),
        }))}
      />
      <BarChart
        title="Tokens by task type"
        unit="tokens"
        total={totalTokens}
        bars={report.by_task_type.map((t) => ({ label: t.task_type, value: tokensOf(t) }))}
      />
      <BarChart
        title="Cost by task type"
        unit={total.currency}
        total={total.estimated_cost}
        bars={report.by_task_type.map((t) => ({
          label: t.task_type,
          value: Number(t.estimated_cost ?? "0"),
        }))}
      />
    </div>
  );
}

/**
 * Without a session: the month's usage across sessions against the budget. With one: that
 * session's usage report, totals, charts and the exact figures as the API wrote them.
 */
export function UsagePage({ sessionId }: { sessionId?: string }) {
  const usage = useLoad(
    () =>
      sessionId
        ? api("get", "/api/v1/sessions/{session_id}/usage", { params: { session_id: sessionId } })
        : Promise.resolve(null),
    [sessionId],
  );
  const report = usage.data;
  return (
    <>
      <h1>Usage</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SessionPicker section="usage" sessionId={sessionId} everyLabel="All sessions" />
      </form>
      {!sessionId && <MonthUsage />}
      {usage.error && <p role="alert" class="error">{usage.error}</p>}
      {report && (
        <>
          <dl class="totals">
            <div>
              <dt>Input tokens</dt>
              <dd>{count(report.total.input_tokens)}</dd>
            </div>
            <div>
              <dt>Read from cache</dt>
              <dd>{cached(report.total.cache_read_tokens, report.total.input_tokens)}</dd>
            </div>
            <div>
              <dt>Written to cache</dt>
              <dd>{cached(report.total.cache_write_tokens, report.total.input_tokens)}</dd>
            </div>
            <div>
              <dt>Output tokens</dt>
              <dd>{count(report.total.output_tokens)}</dd>
            </div>
            <div>
              <dt>Total tokens</dt>
              <dd>{count(report.total.total_tokens)}</dd>
            </div>
            <div>
              <dt>Estimated cost</dt>
              <dd>
                {report.total.estimated_cost === undefined
                  ? "sealed"
                  : money(report.total.estimated_cost, report.total.currency)}
              </dd>
            </div>
          </dl>
          <Charts report={report} />
          <Tables report={report} />
        </>
      )}
    </>
  );
}
