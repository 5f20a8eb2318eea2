import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

export interface Bar {
  label: string;
  /** The figure to draw; exact values are shown in the table beside the chart. */
  value: number;
}

const COLORS = ["#1f5fa8", "#b3541e", "#2e7d32", "#6a3d9a", "#8c6d1f", "#00838f"];

/**
 * A bar chart of labelled values (uPlot), with the figure's total in a caption and as
 * `data-total`, so a reader (or a test) can check what was drawn.
 */
export function BarChart(
  { title, bars, total, unit }: { title: string; bars: Bar[]; total: string; unit: string },
) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || bars.length === 0) return;
    const labels = bars.map((b) => b.label);
    const width = () => Math.max(240, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [-0.5, bars.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          {
            splits: () => labels.map((_, i) => i),
            values: (_u, splits) => splits.map((i) => labels[i] ?? ""),
            size: 40,
          },
          {
            size: 80,
            values: (_u, splits) =>
              splits.map((v) => v.toLocaleString("en-US", { maximumSignificantDigits: 3 })),
          },
        ],
        series: [
          {},
          {
            label: title,
            fill: (_u, _i) => COLORS[0],
            stroke: COLORS[0],
            paths: uPlot.paths.bars!({ size: [0.6, 80] }),
            points: { show: false },
          },
        ],
      },
      [labels.map((_, i) => i), bars.map((b) => b.value)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [JSON.stringify(bars), title]);
  return (
    <figure class="chart" data-total={total}>
      <figcaption>
        {title}: <strong>{total}</strong> {unit}
      </figcaption>
      {bars.length === 0 ? <p class="muted">nothing recorded</p> : (
        <div
          ref={host}
          role="img"
          aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(", ")}`}
        />
      )}
    </figure>
  );
}
