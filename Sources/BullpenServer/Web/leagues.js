// Leagues in words: the ranking measures, a league's status, clock and rules as the screens show
// them (the league page, the list, a league portfolio's card). Every figure is the server's
// decimal string, formatted; nothing here computes one. Also joining a league, from the list or its page.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { navigate } from '/router.js';
import { toast } from '/components/toast.js';
import { formatCount, formatDate, formatDateTime, formatMoney, formatNumber, formatPrice, formatSessionDate, formatShare, formatTradingDays,
         isZeroAmount } from '/format.js';

/** The measures a leaderboard ranks by: [API name, label]. */
export const METRICS = [['return', 'Return'], ['sharpe', 'Sharpe ratio'], ['drawdown', 'Largest fall'], ['vs_benchmark', 'vs S&P 500']];

export function metricLabel(metric) { return METRICS.find(([id]) => id === metric)?.[1] ?? metric; }

const STATUS = { upcoming: 'Not started', active: 'Running', ended: 'Ended' };

/** "Running", "Not started" or "Ended" as a badge. */
export function statusBadge(league) {
  return html`<span class="badge league-${league.status}">${STATUS[league.status] ?? league.status}</span>`;
}

/** "1 player", "12 players". */
export function playersText(count) { return formatCount(count, 'player', 'players'); }

/** A player's place: "#3", or "—" while they have none. */
export function rankText(rank) { return rank == null ? '—' : `#${formatNumber(rank)}`; }

const UNITS = { m: ['minute', 'minutes'], h: ['hour', 'hours'], d: ['day', 'days'] };

/** A schedule's interval as the API writes it ("1h", "15m", "2d") in words: "hour", "15 minutes", "2 days". */
function intervalText(every) {
  const match = /^(\d+)([mhd])$/.exec(every ?? '');
  if (!match) return every ?? '';
  const count = Number.parseInt(match[1], 10);
  return count === 1 ? UNITS[match[2]][0] : `${formatNumber(count)} ${UNITS[match[2]][1]}`;
}

/** How a league's clock moves, in a sentence. */
export function clockText(clock) {
  if (clock.mode !== 'replay') return 'Live market: real prices as they move today.';
  const started = clock.start ? ` It started on ${formatDate(clock.start)}` : '';
  const now = clock.date ? ` and stands on ${formatSessionDate(clock.date)}.` : '.';
  const moves = clock.advance === 'scheduled'
    ? ` It moves ${formatTradingDays(clock.days ?? 1)} every ${intervalText(clock.every)}${clock.nextAdvanceAt ? `, next at ${formatDateTime(clock.nextAdvanceAt)}` : ''}.`
    : ' The owner moves it forward.';
  return `Replay of the past: everyone plays the same dates.${started}${now}${moves}`;
}

/** Whether a rule's amount sets a limit: present and not zero ("0.00" is no limit). */
function isLimit(text) { return text != null && !isZeroAmount(text); }

/** The commission in words: "None", "$4.95 a trade", "0.10% of each trade", or both. */
function commissionText(perTrade, percent) {
  const parts = [];
  if (isLimit(perTrade)) parts.push(`${formatMoney(perTrade)} a trade`);
  if (isLimit(percent)) parts.push(`${formatShare(percent)} of each trade's amount`);
  return parts.length ? parts.join(' plus ') : 'None';
}

function rule(term, value, id) {
  return html`<div><dt>${term}</dt><dd id="${id}">${value}</dd></div>`;
}

/** A league's rules and dates as a list of figures (the league page). */
export function rulesList(league) {
  const r = league.rules;
  const replay = league.clock.mode === 'replay';
  return html`<dl class="figures rules" id="league-rules">
    ${rule('Starting cash', formatMoney(league.startingCash), 'rule-cash')}
    ${rule('Clock', replay ? 'Replay' : 'Live', 'rule-clock')}
    ${rule('Commission', commissionText(r.commissionPerTrade, r.commissionPercent), 'rule-commission')}
    ${rule('Largest position', isLimit(r.maxPositionPercent) ? `${formatShare(r.maxPositionPercent)} of your equity` : 'No limit', 'rule-position')}
    ${rule('Lowest price you may buy', isLimit(r.minimumPrice) ? formatPrice(r.minimumPrice) : 'No limit', 'rule-minimum')}
    ${rule('Different stocks held', r.maxHoldings == null ? 'No limit' : `At most ${formatNumber(r.maxHoldings)}`, 'rule-holdings')}
    ${replay ? rule('Orders fill', "At the close of the league's date", 'rule-hours')
             : rule('Trading hours', r.marketHoursOnly ? 'Only while the market is open (9:30 AM to 4:00 PM ET)' : 'Any time; outside market hours at the last price', 'rule-hours')}
    ${rule('Joining late', r.lateJoin ? 'Allowed' : 'Not after the start', 'rule-late')}
    ${rule('Holdings', r.holdingsVisible ? "Players see each other's holdings and trades" : 'Only the owner sees holdings and trades', 'rule-visible')}
    ${rule('Starts', formatDateTime(league.startsAt), 'league-starts')}
    ${rule('Ends', league.endsAt ? formatDateTime(league.endsAt) : 'No end date', 'league-ends')}
    ${rule('Ranked by', metricLabel(league.defaultMetric), 'rule-metric')}
  </dl>`;
}

/**
 * The rules a league portfolio trades under (PortfolioDTO.rules), in short phrases for the
 * portfolio and company screens: "at most 25.00% in one stock", "no stock under $5.00", ...
 * With the `league` (LeagueDTO) known, its commission is told in full.
 */
export function portfolioRulePhrases(rules, league = null) {
  const phrases = [];
  if (isLimit(rules.maxPositionPercent)) phrases.push(`at most ${formatShare(rules.maxPositionPercent)} of your equity in one stock`);
  if (isLimit(rules.minimumPrice)) phrases.push(`no stock priced under ${formatPrice(rules.minimumPrice)}`);
  if (rules.maxDistinctHoldings != null) phrases.push(`at most ${formatNumber(rules.maxDistinctHoldings)} different stocks`);
  if (rules.marketHoursOnly) phrases.push('orders only while the market is open');
  let commission = league ? commissionText(league.rules.commissionPerTrade, league.rules.commissionPercent) : commissionText(rules.commissionPerOrder, null);
  // Without the league, the rate is known only in basis points: said in words, its figure is on the league's page.
  if (!league && rules.commissionBasisPoints > 0) commission = commission === 'None' ? "a share of each trade's amount" : `${commission} plus a share of each trade's amount`;
  if (commission !== 'None') phrases.push(`commission ${commission}`);
  if (rules.tradingOpens && new Date(rules.tradingOpens) > new Date()) phrases.push(`trading opens ${formatDateTime(rules.tradingOpens)}`);
  if (rules.tradingCloses) phrases.push(`${new Date(rules.tradingCloses) > new Date() ? 'trading closes' : 'trading closed'} ${formatDateTime(rules.tradingCloses)}`);
  return phrases;
}

/** Why a league portfolio takes no orders now, in a sentence; null when it does. */
export function closedReason(portfolio) {
  if (!portfolio?.leagueId) return null;
  if (portfolio.closedAt) return `You left this league on ${formatDateTime(portfolio.closedAt)}: its portfolio is kept, read-only.`;
  const { tradingOpens, tradingCloses } = portfolio.rules ?? {};
  if (tradingCloses && new Date(tradingCloses) <= new Date()) return `The league ended on ${formatDateTime(tradingCloses)}: its standings are final and it takes no more orders.`;
  if (tradingOpens && new Date(tradingOpens) > new Date()) return `The league starts on ${formatDateTime(tradingOpens)}: trading opens then.`;
  return null;
}

/** Joins a league (by `{ code }` or `{ leagueId }`) and opens its page, drawn again when it is the one showing; `fail(text)` shows a refusal. */
export async function join(body, button, fail) {
  button.disabled = true;
  try {
    const league = await api('/api/v1/leagues/join', { method: 'POST', body });
    toast(`You joined ${league.name}.`);
    navigate(`#/leagues/${league.id}`);
  } catch (error) {
    fail(errorMessage(error));
    button.disabled = false;
  }
}
