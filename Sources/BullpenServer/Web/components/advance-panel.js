// A replay's clock on the portfolio screen: move time forward a day, a week, a month, or any number
// of trading days on the slider (1 to 252, about a year; a profile holding coins counts every
// calendar day, 1 to 366, as the server says in its clock); while the server works the controls are
// busy, then the screen redraws with the summary of the move as the server computed it (every
// figure is the server's). "End replay" closes the replay for good and opens its report. A replay
// league's page moves its clock with the same steps (PRESETS, MAX_DAYS, whileMoving). Option
// contracts among the holdings go by their title (prices per share), and the contracts that
// expired on the way are listed with what became of each, in the server's words.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { route } from '/router.js';
import { rememberPortfolio } from '/portfolios.js';
import { confirmDialog } from '/components/dialog.js';
import { contractsText } from '/options.js';
import { formatCount, formatDate, formatMoney, formatNumber, formatPercent, formatPrice, formatSessionDate, formatSignedMoney, formatTradingDays, tone, formatQuantity } from '/format.js';

/** The quick steps: [trading days, label]. */
export const PRESETS = [[1, '1 day'], [5, '1 week'], [21, '1 month']];
/** The most trading days one move may take (about a year); the server's limit too. */
export const MAX_DAYS = 252;
/** A clock that counts every calendar day (a profile holding coins): its steps and its limit. */
const CALENDAR_PRESETS = [[1, '1 day'], [7, '1 week'], [30, '1 month']];
const MAX_CALENDAR_DAYS = 366;

/** 1 → "1 day", 7 → "7 days". */
const formatDays = (days) => formatCount(days, 'day', 'days');

/** How `portfolio`'s clock counts: its steps, its limit and its words. */
function counting(portfolio) {
  return portfolio.clock.dayCount === 'calendar'
    ? { presets: CALENDAR_PRESETS, max: MAX_CALENDAR_DAYS, words: formatDays, calendar: true }
    : { presets: PRESETS, max: MAX_DAYS, words: formatTradingDays, calendar: false };
}

/** The last advance: { portfolioId, answer, focusId }; kept while its portfolio stands where it moved to. */
let last = null;
/** The slider's value, kept between redraws. */
let chosenDays = 1;

/** The controls for `portfolio`'s clock. */
export function advancePanel(portfolio) {
  const count = counting(portfolio);
  const days = Math.min(chosenDays, count.max);
  return html`<section class="card gap-top" id="advance-card" aria-labelledby="advance-title">
    <h2 class="flush-top" id="advance-title">Advance time</h2>
    <p class="small muted">Prices are history: time moves only when you move it. You can wait many days at once.</p>
    ${count.calendar ? html`<p class="small" id="advance-calendar">This profile holds coins, so its clock counts every calendar day: coins trade on weekends and holidays; shares wait for the exchange's next session.</p>` : ''}
    <div class="row" role="group" aria-label="Advance by">
      ${count.presets.map(([n, label]) => html`<button type="button" id="advance-${n}" data-days="${n}">${label}</button>`)}</div>
    <label for="advance-days">Or choose how many ${count.calendar ? 'days' : 'trading days'} to wait</label>
    <div class="slider"><button type="button" id="days-minus" aria-label="One day fewer">−</button>
      <input type="range" id="advance-days" min="1" max="${count.max}" step="1" value="${days}" aria-valuetext="${count.words(days)}">
      <button type="button" id="days-plus" aria-label="One day more">+</button></div>
    <div class="spread gap-top"><output id="advance-days-value" for="advance-days">${count.words(days)}</output>
      <button type="button" class="primary" id="advance">Advance</button></div>
    <p class="small" id="advance-status" role="status"></p>
    <p class="error" id="advance-error" role="alert"></p>
  </section>`;
}

/** What the last advance of `portfolio` did, or nothing when it has moved since (or was reset). */
export function advanceSummary(portfolio) {
  if (last?.portfolioId !== portfolio.id || last.answer.to !== portfolio.clock.date) return '';
  const a = last.answer;
  return html`<section class="card gap-top" id="advance-summary" aria-labelledby="summary-title">
    <h2 class="flush-top" id="summary-title">${formatDate(a.from)} → ${formatDate(a.to)} <span class="small muted">· ${a.dayCount === 'calendar' ? formatDays(a.days) : formatTradingDays(a.days)}</span></h2>
    <p id="advance-message">${a.message}</p>
    <dl class="figures">
      <div><dt>Value before</dt><dd id="summary-before">${formatMoney(a.equityBefore)}</dd></div>
      <div><dt>Value after</dt><dd id="summary-after">${formatMoney(a.equityAfter)}</dd></div>
      <div><dt>Change</dt><dd id="summary-change" class="${tone(a.change)}">${formatSignedMoney(a.change)} (${formatPercent(a.changePercent)})</dd></div>
      <div><dt>S&amp;P 500</dt><dd id="summary-benchmark" class="${tone(a.benchmarkChangePercent)}">${formatPercent(a.benchmarkChangePercent)}</dd></div>
    </dl>
    ${a.holdings.length === 0 ? '' : html`<table id="summary-holdings"><caption class="visually-hidden">How each holding moved</caption>
      <thead><tr><th scope="col">Holding</th><th scope="col">Quantity</th><th scope="col" class="hide-narrow">Price</th><th scope="col">Change</th></tr></thead><tbody>
      ${a.holdings.map((h) => html`<tr data-symbol="${h.symbol}"><td><strong>${h.option ? h.option.title : h.symbol}</strong></td>
        <td>${h.option ? contractsText(h.quantity) : formatQuantity(h.quantity)}</td>
        <td class="hide-narrow">${formatPrice(h.priceBefore)} → ${formatPrice(h.priceAfter)}${h.option ? html`<div class="small muted">a share</div>` : ''}</td>
        <td class="${tone(h.valueChange)}">${formatSignedMoney(h.valueChange)}<div class="small">${formatPercent(h.changePercent)}</div></td></tr>`)}
      </tbody></table>`}
    ${settlementList(a.settlements ?? [])}
    ${a.endOfData ? html`<p class="notice gap-top" id="end-of-data">The data ends on ${formatDate(a.to)}: the replay cannot go further. <a href="#/report">See your report</a>.</p>` : ''}
  </section>`;
}

const OUTCOMES = { exercised: 'Exercised', assigned: 'Assigned', cash_settled: 'Settled in cash', expired_worthless: 'Expired worthless' };

/** The option contracts an advance settled, each in the server's words with its cash and result. */
function settlementList(settlements) {
  if (settlements.length === 0) return '';
  return html`<h3>Options that expired</h3>
    <ul class="list" id="summary-settlements">${settlements.map((s) => html`<li data-contract="${s.contract.positionSymbol}" data-outcome="${s.outcome}">
      <div><span class="badge plain-badge">${OUTCOMES[s.outcome] ?? s.outcome}</span> <span class="small muted">${formatDate(s.date)}</span>
        <div class="small">${s.message}</div></div>
      <div class="figure settlement-figure"><span class="${tone(s.cashDelta)}">${formatSignedMoney(s.cashDelta)}</span>
        <div class="small">Realized <span class="${tone(s.realizedPnl)}">${formatSignedMoney(s.realizedPnl)}</span></div></div></li>`)}</ul>`;
}

/** Wires the controls drawn by advancePanel for `portfolio`; `live()` as the screen's. */
export function setupAdvance(portfolio, live) {
  const card = document.getElementById('advance-card');
  const justMoved = last?.focusId && last.portfolioId === portfolio.id;
  if (!card) {
    // The move reached the end of the data: the controls are gone, the report is next.
    if (justMoved) { document.getElementById('report-link')?.focus(); last.focusId = null; }
    return;
  }
  const count = counting(portfolio);
  const slider = document.getElementById('advance-days');
  const shown = document.getElementById('advance-days-value');
  const setDays = (days) => {
    chosenDays = Math.min(count.max, Math.max(1, days));
    slider.value = String(chosenDays);
    slider.setAttribute('aria-valuetext', count.words(chosenDays));
    shown.textContent = count.words(chosenDays);
  };
  chosenDays = Math.min(chosenDays, count.max);
  slider.addEventListener('input', () => setDays(Number.parseInt(slider.value, 10)));
  document.getElementById('days-minus').addEventListener('click', () => setDays(chosenDays - 1));
  document.getElementById('days-plus').addEventListener('click', () => setDays(chosenDays + 1));

  const advance = async (days, trigger) => {
    const answer = await whileMoving(card, `Advancing ${count.words(days)}…`, live,
      () => api(`/api/v1/portfolios/${portfolio.id}/advance`, { method: 'POST', body: { days } }));
    if (!answer) return;
    last = { portfolioId: portfolio.id, answer, focusId: trigger.id };
    rememberPortfolio(answer.portfolio);
    if (live()) route();   // the screen redraws with the new figures and the summary
  };
  for (const button of card.querySelectorAll('[data-days]')) {
    button.addEventListener('click', () => advance(Number.parseInt(button.dataset.days, 10), button));
  }
  const go = document.getElementById('advance');
  go.addEventListener('click', () => advance(chosenDays, go));

  // Right after an advance: the focus goes back to the control used, and the move is announced.
  if (justMoved) {
    document.getElementById(last.focusId)?.focus();
    const words = last.answer.dayCount === 'calendar' ? formatDays : formatTradingDays;
    document.getElementById('advance-status').textContent = `Moved ${words(last.answer.days)}, to ${formatSessionDate(last.answer.to)}.`;
    last.focusId = null;
  }
}

/**
 * Runs `move()`, a call that moves a clock, with the controls in `box` disabled and the box busy,
 * its status saying `doing`. Answers the server's answer, or null after a refusal: its words then
 * show in the box's alert and the controls work again. `live()`: the screen's.
 */
export async function whileMoving(box, doing, live, move) {
  const controls = [...box.querySelectorAll('button, input')];
  const status = box.querySelector('[role="status"]');
  const error = box.querySelector('[role="alert"]');
  controls.forEach((control) => { control.disabled = true; });
  box.setAttribute('aria-busy', 'true');
  status.textContent = doing;
  error.textContent = '';
  try {
    return await move();
  } catch (problem) {
    if (live()) {
      controls.forEach((control) => { control.disabled = false; });
      box.removeAttribute('aria-busy');
      status.textContent = '';
      error.textContent = errorMessage(problem);
    }
    return null;
  }
}

/** Asks before ending the replay of `portfolio`, then ends it and opens the report. */
export function endReplayDialog(portfolio) {
  confirmDialog({
    title: `End ${portfolio.name}?`,
    body: html`<p>The replay stops on ${formatDate(portfolio.clock.date)}: you can no longer trade or advance it. The report shows how you did against the S&amp;P 500.</p>`,
    confirmLabel: 'End replay',
    run: async () => {
      rememberPortfolio(await api(`/api/v1/portfolios/${portfolio.id}/end`, { method: 'POST' }));
      location.hash = '#/report';
    },
  });
}
