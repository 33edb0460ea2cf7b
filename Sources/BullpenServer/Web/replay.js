// Replays of the past: what a new one can start from (the data's first and last dates and the
// scenarios, asked once), and when one has its report.
import { api } from '/api.js';

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

/** Lets a year and month picker choose only the months from `firstMonth` to `lastMonth`
 *  (`YYYY-MM`): the others are disabled, and a month outside moves to the nearest inside. */
export function boundMonthPicker(year, month, firstMonth, lastMonth) {
  for (const option of month.options) {
    const at = `${year.value}-${option.value}`;
    option.disabled = at < firstMonth || at > lastMonth;
  }
  const at = `${year.value}-${month.value}`;
  if (at < firstMonth) month.value = firstMonth.slice(5);
  if (at > lastMonth) month.value = lastMonth.slice(5);
}
