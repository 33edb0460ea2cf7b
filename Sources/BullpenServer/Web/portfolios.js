// The player's portfolios and which one the screens show (kept per device).
import { api } from '/api.js';

const KEY = 'bullpen.portfolio';

export async function loadPortfolios() {
  return (await api('/api/v1/portfolios')).portfolios;
}

/** The saved choice when it still exists, else the first portfolio. */
export function selectedPortfolioId(portfolios) {
  const saved = localStorage.getItem(KEY);
  return portfolios.find((p) => p.id === saved)?.id ?? portfolios[0]?.id;
}

export function selectPortfolio(id) { localStorage.setItem(KEY, id); }
