/**
 * Axis ticks at "nice" numbers (1, 2, 2.5 or 5 times a power of ten) from zero to at least `max`,
 * about `count` of them: an axis reads 0, 5, 10, 15 rather than 0, 3.7, 7.4.
 */
export function niceTicks(max: number, count = 5, integers = true): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  let step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10) * power;
  // 2.5 is not a whole number: whole-number axes take 5 instead; below 1, 1.
  if (integers && !Number.isInteger(step)) step = step < 1 ? 1 : step * 2;
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1]! < max; i++) ticks.push(Math.round(i * step * 1e6) / 1e6);
  return ticks;
}
