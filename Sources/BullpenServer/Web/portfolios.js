// The player's portfolios and which one the screens show (kept per device). The selected one, as
// last loaded, is known to the whole app (the replay banner follows it); a replay portfolio keeps
// all research at its date (withAsOf).
import { api } from '/api.js';
import { onSessionChange } from '/session.js';

const KEY = 'bullpen.portfolio';

let selected = null;
const listeners = new Set();

/** `listener(portfolio)` whenever the selected portfolio is loaded or changes; null when signed out. */
export function onPortfolioChange(listener) { listeners.add(listener); }

/** The selected portfolio as last loaded, or null before the first load. */
export function currentPortfolio() { return selected; }

/** Keeps `portfolio` as the selected one's latest state (an advance answers it) and tells the listeners. */
export function rememberPortfolio(portfolio) {
  selected = portfolio;
  listeners.forEach((listener) => listener(selected));
}

onSessionChange((session) => { if (!session) rememberPortfolio(null); });

export async function loadPortfolios() {
  const portfolios = (await api('/api/v1/portfolios')).portfolios;
  const id = selectedPortfolioId(portfolios);
  rememberPortfolio(portfolios.find((p) => p.id === id) ?? null);
  return portfolios;
}

/** The selected portfolio, freshly loaded. */
export async function loadSelectedPortfolio() {
  await loadPortfolios();
  return selected;
}

/** The saved choice when it still exists, else the first portfolio. */
export function selectedPortfolioId(portfolios) {
  const saved = localStorage.getItem(KEY);
  return portfolios.find((p) => p.id === saved)?.id ?? portfolios[0]?.id;
}

export function selectPortfolio(id) { localStorage.setItem(KEY, id); }

/** Whether `portfolio` replays the past (its clock stands on a date of the history). */
export function isReplay(portfolio) { return portfolio?.clock?.mode === 'replay'; }

/**
 * A research path as seen from `portfolio`: for a replay, `asOf=` its date is added, so that no
 * later price or later company shows ("/api/v1/assets/MSFT" → "/api/v1/assets/MSFT?asOf=2009-03-02");
 * unchanged for a live portfolio.
 */
export function withAsOf(path, portfolio) {
  if (!isReplay(portfolio)) return path;
  return `${path}${path.includes('?') ? '&' : '?'}asOf=${encodeURIComponent(portfolio.clock.date)}`;
}
