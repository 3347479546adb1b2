/** @jsxImportSource hono/jsx */
/**
 * Small server-side SVG charts of the dashboard (docs/design.md "Pages work without JavaScript": no client chart library):
 * stacked columns over days and stacked horizontal bars per item. Each chart is an image with a
 * title and a description for assistive technology; the page also shows the same figures as a
 * table.
 */

/** Series colours, distinguishable and with enough contrast on white. */
export const SERIES_COLOURS = ["#9b2c2c", "#2f5d50", "#b7791f", "#2b6cb0", "#6b46c1", "#4a5568", "#c05621", "#2c7a7b"];

export interface Series {
  label: string;
  colour?: string;
}

/** The two drawings of a chart: the desktop one, 720 units wide, and the phone one, 340 wide, shown under 700 px (public/app.css). */
const WIDE = { width: 720, suffix: "", className: "wide" } as const;
const NARROW = { width: 340, suffix: "-n", className: "narrow" } as const;
type Drawing = typeof WIDE | typeof NARROW;

const chartId = (title: string) => `chart-${title.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`;

interface ColumnsProps {
  title: string;
  description: string;
  labels: string[];
  series: Series[];
  values: number[][];
  height?: number;
}

/**
 * Stacked columns: one column per label (e.g. a day), one stacked segment per series. Drawn twice:
 * scaled down to a phone, the 720-unit drawing's 11-unit labels were 5 px tall; the phone's own
 * drawing is near its natural size there, so its labels stay 11 px and more, with fewer of them.
 */
export function StackedColumns(props: ColumnsProps) {
  return (
    <figure class="chart">
      <ColumnsSvg {...props} d={WIDE} />
      <ColumnsSvg {...props} d={NARROW} />
      <Legend series={props.series} />
    </figure>
  );
}

function ColumnsSvg(props: ColumnsProps & { d: Drawing }) {
  const height = props.height ?? 160;
  const width = props.d.width;
  const left = 36;
  const bottom = 22;
  const plotH = height - bottom - 8;
  const n = Math.max(1, props.labels.length);
  const step = (width - left - 4) / n;
  const bar = Math.max(2, Math.min(24, step * 0.7));
  const totals = props.labels.map((_, i) => props.values.reduce((s, v) => s + (v[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const y = (v: number) => 8 + plotH - (v / max) * plotH;
  // a label per 90 units at most (8 across the desktop drawing, 3 or 4 across the phone's)
  const every = Math.max(1, Math.ceil(n / Math.floor((width - left) / 85)));
  const id = chartId(props.title) + props.d.suffix;
  return (
    <svg viewBox={`0 0 ${width} ${height}`} width="100%" class={props.d.className} role="img" aria-labelledby={`${id}-t ${id}-d`}>
      <title id={`${id}-t`}>{props.title}</title>
      <desc id={`${id}-d`}>{props.description}</desc>
      <line x1={left} x2={width - 4} y1={y(0)} y2={y(0)} class="axis" />
      <text x={left - 4} y={y(max) + 4} text-anchor="end" class="tick">
        {max}
      </text>
      <text x={left - 4} y={y(0)} text-anchor="end" class="tick">
        0
      </text>
      {props.labels.map((label, i) => {
        let acc = 0;
        const x = left + i * step + (step - bar) / 2;
        return (
          <g>
            {props.series.map((s, k) => {
              const v = props.values[k]?.[i] ?? 0;
              if (v === 0) return null;
              const top = y(acc + v);
              const h = y(acc) - top;
              acc += v;
              return (
                <rect
                  x={x.toFixed(1)}
                  y={top.toFixed(1)}
                  width={bar.toFixed(1)}
                  height={Math.max(1, h).toFixed(1)}
                  fill={s.colour ?? SERIES_COLOURS[k % SERIES_COLOURS.length]}
                >
                  <title>{`${label}: ${s.label} ${v}`}</title>
                </rect>
              );
            })}
            {i % every === 0 ? (
              <text x={(x + bar / 2).toFixed(1)} y={height - 6} text-anchor="middle" class="tick">
                {label}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

interface BarsProps {
  title: string;
  description: string;
  items: { label: string; values: number[] }[];
  series: Series[];
}

/** Stacked horizontal bars: one bar per item, one segment per series; on a phone each item's label above its bar. */
export function StackedBars(props: BarsProps) {
  return (
    <figure class="chart">
      <BarsSvg {...props} d={WIDE} />
      <BarsSvg {...props} d={NARROW} />
      <Legend series={props.series} />
    </figure>
  );
}

function BarsSvg(props: BarsProps & { d: Drawing }) {
  const narrow = props.d === NARROW;
  // desktop: the label left of its bar; phone: the label on a line of its own, the bar under it
  const row = narrow ? 34 : 20;
  const labelW = narrow ? 0 : 220;
  const barTop = narrow ? 18 : 2;
  const barH = narrow ? 12 : row - 6;
  const maxChars = narrow ? 46 : 32;
  const width = props.d.width;
  const height = Math.max(1, props.items.length) * row + 8;
  const max = Math.max(1, ...props.items.map((it) => it.values.reduce((s, v) => s + v, 0)));
  const scale = (width - labelW - (narrow ? 40 : 60)) / max;
  const id = chartId(props.title) + props.d.suffix;
  return (
    <svg viewBox={`0 0 ${width} ${height}`} width="100%" class={props.d.className} role="img" aria-labelledby={`${id}-t ${id}-d`}>
      <title id={`${id}-t`}>{props.title}</title>
      <desc id={`${id}-d`}>{props.description}</desc>
      {props.items.map((it, i) => {
        let x = labelW;
        const yy = 4 + i * row;
        const total = it.values.reduce((s, v) => s + v, 0);
        return (
          <g>
            <text x={narrow ? 0 : labelW - 6} y={yy + 13} text-anchor={narrow ? "start" : "end"} class="tick">
              {it.label.length > maxChars ? it.label.slice(0, maxChars - 1) + "…" : it.label}
            </text>
            {it.values.map((v, k) => {
              if (v === 0) return null;
              const w = v * scale;
              const rect = (
                <rect
                  x={x.toFixed(1)}
                  y={yy + barTop}
                  width={Math.max(1, w).toFixed(1)}
                  height={barH}
                  fill={props.series[k]?.colour ?? SERIES_COLOURS[k % SERIES_COLOURS.length]}
                >
                  <title>{`${it.label}: ${props.series[k]?.label ?? ""} ${v}`}</title>
                </rect>
              );
              x += w;
              return rect;
            })}
            <text x={(x + 4).toFixed(1)} y={yy + barTop + (narrow ? 11 : 11)} class="tick">
              {total}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function Legend(props: { series: Series[] }) {
  return (
    <figcaption class="legend small">
      {props.series.map((s, k) => (
        <span>
          <span class="swatch" style={`background:${s.colour ?? SERIES_COLOURS[k % SERIES_COLOURS.length]}`}></span> {s.label}
        </span>
      ))}
    </figcaption>
  );
}
