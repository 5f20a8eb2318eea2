import { api, type Schemas } from "../api.ts";
import { BarChart } from "../components/bar_chart.tsx";
import { SpendChart } from "../components/spend_chart.tsx";
import { count, money, when } from "../format.ts";
import { useLoad } from "../load.ts";

type Report = Schemas["PeriodUsageReport"];
type Window = Schemas["BudgetWindow"];

/** One window of the budget: what is left of the limit, what was spent and reserved. */
function BudgetWindowRow({ name, w, currency }: { name: string; w: Window; currency: string }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{money(w.limit, currency)}</td>
      <td>{money(w.spent, currency)}</td>
      <td>{money(w.reserved, currency)}</td>
      <td>
        <strong>{money(w.left, currency)}</strong>
      </td>
      <td>{when(w.resets_at)}</td>
    </tr>
  );
}

function Budget({ report }: { report: Report }) {
  const b = report.budget;
  if (b === null) return <p class="muted">No budget: your calls are not limited.</p>;
  return (
    <table>
      <caption>Budget</caption>
      <thead>
        <tr>
          <th scope="col">Window</th>
          <th scope="col">Limit</th>
          <th scope="col">Spent</th>
          <th scope="col">Reserved</th>
          <th scope="col">Left</th>
          <th scope="col">Resets</th>
        </tr>
      </thead>
      <tbody>
        {b.daily && <BudgetWindowRow name="Today (UTC)" w={b.daily} currency={b.currency} />}
        {b.monthly && (
          <BudgetWindowRow name="This month (UTC)" w={b.monthly} currency={b.currency} />
        )}
      </tbody>
    </table>
  );
}

/** The caller's usage across sessions this UTC month: spend per day and per model, against the budget. */
export function MonthUsage() {
  const usage = useLoad(() => api("get", "/api/v1/usage", {}), []);
  const report = usage.data;
  if (usage.error) return <p role="alert" class="error">{usage.error}</p>;
  if (!report) return <p class="muted">Loading…</p>;
  const currency = report.total.currency;
  return (
    <section aria-labelledby="month-usage">
      <h2 id="month-usage">
        All sessions, {report.from} to {report.to}
      </h2>
      <dl class="totals">
        <div>
          <dt>Requests</dt>
          <dd>{count(report.total.request_count)}</dd>
        </div>
        <div>
          <dt>Total tokens</dt>
          <dd>{count(report.total.total_tokens)}</dd>
        </div>
        <div>
          <dt>Spent</dt>
          <dd>{money(report.total.estimated_cost, currency)}</dd>
        </div>
        {report.budget?.monthly && (
          <div>
            <dt>Left this month</dt>
            <dd>{money(report.budget.monthly.left, currency)}</dd>
          </div>
        )}
        {report.budget?.daily && (
          <div>
            <dt>Left today</dt>
            <dd>{money(report.budget.daily.left, currency)}</dd>
          </div>
        )}
      </dl>
      <Budget report={report} />
      <div class="charts">
        <SpendChart
          days={report.by_day.map((d) => ({ date: d.date, cost: d.estimated_cost }))}
          total={report.total.estimated_cost ?? "0"}
          limit={report.budget?.daily?.limit ?? null}
          currency={currency}
        />
        <BarChart
          title="Spend by model"
          unit={currency}
          total={report.total.estimated_cost ?? "0"}
          bars={report.by_model.map((m) => ({
            label: `${m.provider}/${m.model}`,
            value: Number(m.estimated_cost ?? "0"),
          }))}
        />
      </div>
      <table>
        <caption>By model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Requests</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Read from cache</th>
            <th scope="col">Written to cache</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {report.by_model.map((m) => (
            <tr key={`${m.provider}/${m.model}`}>
              <th scope="row">{m.provider}/{m.model}</th>
              <td>{m.request_count}</td>
              <td>{count(m.input_tokens)}</td>
              {/* The report leaves out a zero cache count. */}
              <td>{count(m.cache_read_tokens ?? 0)}</td>
              <td>{count(m.cache_write_tokens ?? 0)}</td>
              <td>{count(m.output_tokens)}</td>
              <td>{money(m.estimated_cost, currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>By day</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Requests</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {report.by_day.filter((d) => d.request_count > 0).map((d) => (
            <tr key={d.date}>
              <th scope="row">{d.date}</th>
              <td>{d.request_count}</td>
              <td>{count(d.total_tokens)}</td>
              <td>{money(d.estimated_cost, d.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
