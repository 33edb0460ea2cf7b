// What the whole app knows about the market: the data source (demo or real) and the exchange's
// clock, refreshed every minute; listeners hear each refresh.
import { api } from '/api.js';

/** { status: GET /market/status, clock: GET /market/clock }, null while unknown. */
export const market = { status: null, clock: null };
const listeners = new Set();

export function onMarketChange(listener) { listeners.add(listener); }

export async function refreshMarket() {
  const [status, clock] = await Promise.allSettled([
    api('/api/v1/market/status', { auth: false }), api('/api/v1/market/clock', { auth: false }),
  ]);
  market.status = status.value ?? null;
  market.clock = clock.value ?? null;
  listeners.forEach((listener) => listener(market));
}
