// Line charts in SVG, our own: one or more series, an optional horizontal reference line (the
// break-even at the average cost, a zero line), vertical markers on a chart whose points carry
// their own x values (a payoff's underlying prices), and a crosshair showing date and value on
// hover, touch or the arrow keys. Values arrive as the API's decimal strings: the chart turns them into numbers only
// to place points; the tooltip shows the string itself, formatted. The value axis has round
// ticks (1, 2, 2.5 or 5 times a power of ten, as $0, $250, $500), never below `floor` (a price
// axis stops at $0); on a logarithmic scale, ticks at 1, 2 and 5 times the powers of ten.
import { html, render } from '/html.js';

const NS = 'http://www.w3.org/2000/svg';

function el(name, attributes = {}) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** A point's position on the value axis; NaN when there is no value. */
function position(text) { return text == null ? NaN : Number(text); }

/** `value` rid of the float noise of repeated steps (0.30000000000000004 → 0.3). */
const clean = (value) => Number(value.toPrecision(12));

/**
 * Round ticks covering [min, max], about `count` steps of 1, 2, 2.5 or 5 times a power of ten,
 * the lowest not below `floor`: { ticks, step }. The axis runs from the first tick to the last.
 */
export function linearTicks(min, max, { floor = -Infinity, count = 4 } = {}) {
  if (!(max > min)) { const pad = Math.abs(min) * 0.05 || 1; min -= pad; max += pad; }
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = clean([1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw * 0.999));
  const low = Math.max(Math.floor(clean(min / step)) * step, floor);
  const high = Math.ceil(clean(max / step)) * step;
  const ticks = [];
  for (let i = 0; low + i * step <= high + step / 1e6; i += 1) ticks.push(clean(low + i * step));
  return { ticks, step };
}

/**
 * Ticks of a logarithmic axis over [min, max] (both above zero): the 1, 2, 5 × 10^k values, the
 * axis running from the largest of them at or under `min` to the smallest at or over `max`; only
 * the powers of ten (and the ends) when that would be more than 7.
 */
export function logTicks(min, max) {
  const series = [];
  for (let k = Math.floor(Math.log10(min)) - 1; k <= Math.ceil(Math.log10(max)) + 1; k += 1) {
    for (const m of [1, 2, 5]) series.push(clean(m * 10 ** k));
  }
  const low = series.filter((v) => v <= min).pop() ?? min;
  const high = series.find((v) => v >= max) ?? max;
  let ticks = series.filter((v) => v >= low && v <= high);
  const powerOfTen = (v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
  if (ticks.length > 7) ticks = ticks.filter((v, i) => i === 0 || i === ticks.length - 1 || powerOfTen(v));
  return { ticks, low, high };
}

/**
 * Draws into `container`.
 * series: [{ points: [{ label, value, x }], color, dashed, name }] with `value` a decimal string or
 * null (all series share the x positions); `x`, a decimal string, places the points on a scale of
 * their own (a payoff's underlying prices) instead of evenly, when every point of the first series has one
 * reference: { value, label } | null, `value` a decimal string
 * markers: [{ x, label }], vertical lines at `x` (a decimal string on the points' scale), labelled
 * formatValue(text) → string for the tooltip; formatAxis(number) → string for the grid labels;
 * describe: text for screen readers.
 */
export function lineChart(container, { series, reference = null, markers = [], formatValue, formatAxis, describe, floor = -Infinity, scale = 'linear' }) {
  container.replaceChildren();
  container.classList.add('chart');
  const points = series[0]?.points ?? [];
  if (points.length === 0) {
    render(container, html`<p class="muted">No prices for this range yet.</p>`);
    return;
  }
  const referenceAt = reference ? position(reference.value) : NaN;
  // Drawn at the container's own size, so that labels keep their real 12 px on a phone.
  const width = Math.max(280, Math.round(container.getBoundingClientRect().width || 640));
  const height = Math.min(360, Math.max(180, Math.round(width * 0.5)));
  const padLeft = 8, padRight = 72, padTop = 12, padBottom = 24;
  const values = series.flatMap((s) => s.points.map((p) => position(p.value))).filter(Number.isFinite);
  if (Number.isFinite(referenceAt)) values.push(referenceAt);
  // The value axis: round ticks, the axis from the first to the last; logarithmic only over positive values.
  const log = scale === 'log' && values.length > 0 && values.every((v) => v > 0);
  let min, max, ticks, tickStep = null;
  if (log) {
    ({ ticks, low: min, high: max } = logTicks(Math.min(...values), Math.max(...values)));
    if (!(max > min)) { min /= 2; max *= 2; ticks = [min, max]; }
  } else {
    ({ ticks, step: tickStep } = linearTicks(Math.min(...values), Math.max(...values), { floor }));
    min = ticks[0]; max = ticks[ticks.length - 1];
  }
  // The horizontal scale: the points' own x values when they all have one, else their order.
  const xs = points.map((p) => position(p.x));
  const scaled = points.length > 1 && xs.every(Number.isFinite) && xs[xs.length - 1] > xs[0];
  const plotWidth = width - padLeft - padRight;
  const xAt = (value) => padLeft + ((value - xs[0]) / (xs[xs.length - 1] - xs[0])) * plotWidth;
  const x = (i) => scaled ? xAt(xs[i]) : padLeft + (points.length === 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
  const plotHeight = height - padTop - padBottom;
  const y = log
    ? (v) => padTop + (1 - (Math.log(v) - Math.log(min)) / (Math.log(max) - Math.log(min))) * plotHeight
    : (v) => padTop + (1 - (v - min) / (max - min)) * plotHeight;

  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': describe ?? 'Chart',
                          'data-scale': log ? 'log' : 'linear' });
  // Grid: a line at each tick, its label on the right.
  for (const value of ticks) {
    svg.append(el('line', { x1: padLeft, x2: width - padRight, y1: y(value), y2: y(value), stroke: 'var(--line)', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }));
    const label = el('text', { x: width - padRight + 6, y: y(value) + 4, 'font-size': 12, fill: 'var(--muted)', 'data-role': 'tick', 'data-value': String(value) });
    label.textContent = formatAxis(value, tickStep ?? value);
    svg.append(label);
  }
  const first = el('text', { x: padLeft, y: height - 6, 'font-size': 12, fill: 'var(--muted)' });
  first.textContent = points[0].label;
  const last = el('text', { x: width - padRight, y: height - 6, 'font-size': 12, fill: 'var(--muted)', 'text-anchor': 'end' });
  last.textContent = points[points.length - 1].label;
  svg.append(first, last);

  if (Number.isFinite(referenceAt)) {
    svg.append(el('line', { x1: padLeft, x2: width - padRight, y1: y(referenceAt), y2: y(referenceAt), stroke: 'var(--muted)',
                            'stroke-dasharray': '6 4', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke', 'data-role': 'reference' }));
    const tag = el('text', { x: padLeft + 4, y: y(referenceAt) - 6, 'font-size': 12, fill: 'var(--muted)' });
    tag.textContent = reference.label;
    svg.append(tag);
  }
  for (const marker of scaled ? markers : []) {
    const at = position(marker.x);
    if (!Number.isFinite(at) || at < xs[0] || at > xs[xs.length - 1]) continue;
    const px = xAt(at);
    svg.append(el('line', { x1: px, x2: px, y1: padTop, y2: height - padBottom, stroke: 'var(--focus)', 'stroke-dasharray': '3 3',
                            'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke', 'data-role': 'marker' }));
    const tag = el('text', { x: px + (px > width / 2 ? -4 : 4), y: padTop + 12, 'font-size': 12, fill: 'var(--text)',
                             'text-anchor': px > width / 2 ? 'end' : 'start' });
    tag.textContent = marker.label;
    svg.append(tag);
  }
  for (const s of series) {
    const coordinates = s.points.map((p, i) => {
      const at = position(p.value);
      return Number.isFinite(at) ? `${x(i).toFixed(1)},${y(at).toFixed(1)}` : null;
    }).filter(Boolean);
    if (coordinates.length === 1) {
      const [cx, cy] = coordinates[0].split(',');
      svg.append(el('circle', { cx, cy, r: 4, fill: s.color }));
    } else {
      svg.append(el('polyline', { points: coordinates.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2.25,
                                  'stroke-linejoin': 'round', 'vector-effect': 'non-scaling-stroke', ...(s.dashed ? { 'stroke-dasharray': '5 4' } : {}) }));
    }
  }
  const cross = el('line', { y1: padTop, y2: height - padBottom, stroke: 'var(--text)', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke', visibility: 'hidden' });
  const dot = el('circle', { r: 4, fill: series[0].color, visibility: 'hidden' });
  svg.append(cross, dot);
  container.append(svg);
  const tip = document.createElement('div');
  tip.className = 'tip';
  tip.hidden = true;
  container.append(tip);
  container.tabIndex = 0;

  let index = null;
  function show(i) {
    index = Math.max(0, Math.min(points.length - 1, i));
    const px = x(index);
    cross.setAttribute('x1', px); cross.setAttribute('x2', px); cross.setAttribute('visibility', 'visible');
    const at = position(points[index].value);
    if (Number.isFinite(at)) {
      dot.setAttribute('cx', px); dot.setAttribute('cy', y(at)); dot.setAttribute('visibility', 'visible');
    }
    tip.hidden = false;
    tip.textContent = `${points[index].label} · ` + series.map((s) => (series.length > 1 ? s.name + ' ' : '') + formatValue(s.points[index]?.value)).join(' · ');
    const box = container.getBoundingClientRect();
    tip.style.left = `${Math.min(Math.max((px / width) * box.width, 70), box.width - 70)}px`;
  }
  function hide() { index = null; cross.setAttribute('visibility', 'hidden'); dot.setAttribute('visibility', 'hidden'); tip.hidden = true; }
  function fromPointer(event) {
    const box = svg.getBoundingClientRect();
    const fraction = (event.clientX - box.left) / box.width;
    const plotX = fraction * width;
    if (!scaled) return Math.round(((plotX - padLeft) / plotWidth) * (points.length - 1));
    // The point nearest the pointer on the points' own scale.
    let nearest = 0;
    points.forEach((_, i) => { if (Math.abs(x(i) - plotX) < Math.abs(x(nearest) - plotX)) nearest = i; });
    return nearest;
  }
  svg.addEventListener('pointermove', (event) => show(fromPointer(event)));
  svg.addEventListener('pointerdown', (event) => show(fromPointer(event)));
  svg.addEventListener('pointerleave', hide);
  container.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft') { show((index ?? points.length) - 1); event.preventDefault(); }
    if (event.key === 'ArrowRight') { show((index ?? -1) + 1); event.preventDefault(); }
    if (event.key === 'Escape') hide();
  });
  container.addEventListener('blur', hide);
}
