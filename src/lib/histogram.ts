/**
 * A latency histogram with fixed buckets (seconds), in the shape of the Prometheus text
 * format: `observe` is a short loop over 14 bounds and two additions, cheap enough for every
 * request. Counts per bucket are kept non-cumulative and summed when rendered.
 */

/** Upper bounds in seconds: 0.5 ms to 10 s (key routes answer in well under a millisecond). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export class Histogram {
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last slot is above every bound (+Inf). */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[] = LATENCY_BUCKETS) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && seconds > b[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** `[le, cumulative count]` pairs, the last one `+Inf` (equal to `count`). */
  cumulative(): [string, number][] {
    const out: [string, number][] = [];
    let running = 0;
    this.bounds.forEach((le, i) => {
      running += this.counts[i]!;
      out.push([String(le), running]);
    });
    out.push(["+Inf", this.count]);
    return out;
  }
}
