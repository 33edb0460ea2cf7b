// Replays of the past: what a new one can start from (the data's first and last dates and the
// scenarios, asked once), the month it starts from, and when one has its report.
import { html } from '/html.js';
import { api } from '/api.js';
import { formatMonthName } from '/format.js';

/** The game's limit on portfolios, live and replay together (the server refuses the 21st). */
export const MAX_PORTFOLIOS = 20;

let options = null;

/** GET /replay/scenarios, asked once: { firstDate, lastDate, scenarios: [{ id, name, kind, description, start, end, symbols }] }. */
export function replayOptions() {
  options ??= api('/api/v1/replay/scenarios', { auth: false }).catch((error) => { options = null; throw error; });
  return options;
}

/** Whether the report of a replay is ready: it was ended, or it stands on the data's last day. */
export function reportReady(portfolio, lastDate) {
  return portfolio.clock.ended === true || (!!lastDate && portfolio.clock.date === lastDate);
}

/** The first free "Profile N" among `portfolios` (names are unique, ignoring case), as the server would name it. */
export function nextProfileName(portfolios) {
  const taken = new Set(portfolios.map((p) => p.name.toLowerCase()));
  let n = 1;
  while (taken.has(`profile ${n}`)) n += 1;
  return `Profile ${n}`;
}

const MONTHS = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0'));

/**
 * A month and a year to start a replay from, over the history `{ firstDate, lastDate }` (the
 * replay options): selects `${prefix}-month` and `${prefix}-year`, described by `describedBy`
 * (an error's id) when given. setupMonthPicker wires them.
 */
export function monthPicker(prefix, { firstDate, lastDate }, describedBy = null) {
  const first = Number(firstDate.slice(0, 4)), last = Number(lastDate.slice(0, 4));
  const years = Array.from({ length: last - first + 1 }, (_, i) => String(first + i));
  const described = describedBy ? html`aria-describedby="${describedBy}"` : '';
  return html`<div class="row">
    <div class="field"><label for="${prefix}-month">Month</label>
      <select id="${prefix}-month" ${described}>${MONTHS.map((m) => html`<option value="${m}">${formatMonthName(Number(m))}</option>`)}</select></div>
    <div class="field"><label for="${prefix}-year">Year</label>
      <select id="${prefix}-year" ${described}>${years.map((y) => html`<option value="${y}">${y}</option>`)}</select></div>
  </div>`;
}

/**
 * Wires monthPicker(`prefix`): it starts on the history's first month, and offers only the months
 * inside the history (the others are disabled; a year change moves a month outside to the nearest
 * inside). Answers { month, year, value() } where value() is the choice as the API takes it, "2009-03".
 */
export function setupMonthPicker(prefix, { firstDate, lastDate }) {
  const month = document.getElementById(`${prefix}-month`);
  const year = document.getElementById(`${prefix}-year`);
  const firstMonth = firstDate.slice(0, 7), lastMonth = lastDate.slice(0, 7);
  const bound = () => {
    for (const option of month.options) {
      const at = `${year.value}-${option.value}`;
      option.disabled = at < firstMonth || at > lastMonth;
    }
    const at = `${year.value}-${month.value}`;
    if (at < firstMonth) month.value = firstMonth.slice(5);
    if (at > lastMonth) month.value = lastMonth.slice(5);
  };
  year.addEventListener('change', bound);
  year.value = firstMonth.slice(0, 4);
  month.value = firstMonth.slice(5);
  bound();
  return { month, year, value: () => `${year.value}-${month.value}` };
}
