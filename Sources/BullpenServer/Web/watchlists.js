// The player's watchlist: the screens use the first one, created on first use.
import { api } from '/api.js';

export async function defaultWatchlist() {
  const lists = (await api('/api/v1/watchlists')).watchlists;
  return lists[0] ?? api('/api/v1/watchlists', { method: 'POST', body: { name: 'My watchlist' } });
}
