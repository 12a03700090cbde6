// A time axis for bars drawn to scale: where an instant falls in a span, and round ticks
// (1, 2 or 5 times a unit, in ms, s, min, h or d) labelled as the time since the span began.

export interface Span {
  readonly start: number; // epoch ms
  readonly end: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Steps people count in: 15 s and 30 s rather than 20 s and 50 s, 6 h rather than 5 h.
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR,
  DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY,
];

/** The smallest span holding every interval: at least 1 ms, so that positions stay finite. */
export function spanOf(intervals: Span[]): Span {
  const start = Math.min(...intervals.map((i) => i.start));
  const end = Math.max(...intervals.map((i) => i.end));
  return { start, end: Math.max(end, start + 1) };
}

/** Where `at` falls in `span`, from 0 (its start) to 1 (its end). */
export function fraction(span: Span, at: number): number {
  return (at - span.start) / (span.end - span.start);
}

/** The round step that cuts a span of `length` ms into at most `most` parts. */
export function tickStep(length: number, most = 6): number {
  let step = STEPS.find((s) => length / s <= most) ?? STEPS[STEPS.length - 1]!;
  while (length / step > most) step *= 2;
  return step;
}

/** The offsets (ms since the span's start) of its ticks: 0, step, 2 step... up to its length. */
export function ticks(length: number, step: number): number[] {
  return Array.from({ length: Math.floor(length / step) + 1 }, (_, i) => i * step);
}

/** "0", "200 ms", "1.4 s", "30 s", "5 min", "6 h", "2 d": in the unit of the step. */
export function tickLabel(offset: number, step: number): string {
  if (offset === 0) return "0";
  if (step < 100) return `${offset} ms`;
  if (step < SECOND) return `${Number((offset / SECOND).toFixed(1))} s`;
  if (step < MINUTE) return `${offset / SECOND} s`;
  if (step < HOUR) return `${offset / MINUTE} min`;
  if (step < DAY) return `${offset / HOUR} h`;
  return `${offset / DAY} d`;
}
