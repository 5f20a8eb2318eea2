import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

export interface SpendPoint {
  /** `YYYY-MM-DD`. */
  date: string;
  /** The day's spend as the API wrote it (drawn as a number; the exact figure is in the table). */
  cost: string;
}

/**
 * The spend of each day of a period as bars (uPlot), with the daily budget as a line across
 * them when there is one. The caption carries the period's exact total and the limit, also as
 * `data-total` and `data-limit`, so a reader (or a test) can check what was drawn.
 */
export function SpendChart(
  { days, total, limit, currency }: {
    days: SpendPoint[];
    total: string;
    limit: string | null;
    currency: string;
  },
) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || days.length === 0) return;
    const labels = days.map((d) => d.date.slice(5));
    const width = () => Math.max(240, el.clientWidth);
    const series: uPlot.Series[] = [
      {},
      {
        label: "Spend",
        fill: "#1f5fa8",
        stroke: "#1f5fa8",
        paths: uPlot.paths.bars!({ size: [0.7, 40] }),
        points: { show: false },
      },
    ];
    const data: uPlot.AlignedData = [days.map((_, i) => i), days.map((d) => Number(d.cost))];
    if (limit !== null) {
      series.push({ label: "Daily budget", stroke: "#b3541e", width: 2, dash: [6, 4] });
      (data as number[][]).push(days.map(() => Number(limit)));
    }
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        legend: { show: limit !== null },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [-0.5, days.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          {
            splits: () => labels.map((_, i) => i).filter((i) => i % 5 === 0),
            values: (_u, splits) => splits.map((i) => labels[i] ?? ""),
            size: 40,
          },
          {
            size: 80,
            values: (_u, splits) =>
              splits.map((v) => v.toLocaleString("en-US", { maximumSignificantDigits: 3 })),
          },
        ],
        series,
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [JSON.stringify(days), limit]);
  return (
    <figure class="chart" data-total={total} data-limit={limit ?? ""}>
      <figcaption>
        Spend per day: <strong>{total}</strong> {currency}
        {limit !== null && <>(daily budget {limit} {currency})</>}
      </figcaption>
      <div
        ref={host}
        role="img"
        aria-label={`Spend per day: ${
          days.filter((d) => d.cost !== "0").map((d) => `${d.date} ${d.cost}`).join(", ") ||
          "nothing spent"
        }`}
      />
    </figure>
  );
}
