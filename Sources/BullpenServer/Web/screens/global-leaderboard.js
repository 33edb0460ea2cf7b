// The global leaderboard (#/leagues/global): the live portfolios of every player who chose to
// appear on it, over the last week, month or all time, by any of the four measures. Whether the
// player's own portfolios appear is their choice, kept in Settings (off until they say so).
import { html, render } from '/html.js';
import { api } from '/api.js';
import { view } from '/router.js';
import { leaderboardCard, setupLeaderboard } from '/components/leaderboard.js';

const PERIODS = [['week', 'This week'], ['month', 'This month'], ['all', 'All time']];

function optInLine(settings) {
  if (!settings) return '';
  return settings.publicLeaderboard
    ? html`<p class="small" id="opt-in-state">Your live portfolios are on this leaderboard. You can take them off in <a href="#/settings">Settings</a>.</p>`
    : html`<p class="small" id="opt-in-state">Your portfolios are not on this leaderboard: only the players who choose to are. To appear on it, switch it on in <a href="#/settings">Settings</a>.</p>`;
}

export default async function globalLeaderboardScreen({ live }) {
  view(html`<p><a href="#/leagues">← Leagues</a></p><h1>Global leaderboard</h1>
    <p>Every player who chose to appear here, ranked by their live portfolios.</p>
    <div id="opt-in"></div>
    <div class="segmented toolbar" role="group" aria-label="Period">${PERIODS.map(([id, label]) => html`<button type="button" data-period="${id}" aria-pressed="${String(id === 'all')}">${label}</button>`)}</div>
    ${leaderboardCard()}`);
  let period = 'all';
  const reload = setupLeaderboard({ path: '/api/v1/leaderboard', query: () => ({ period }), live, showPortfolio: true });
  for (const button of document.querySelectorAll('[data-period]')) {
    button.addEventListener('click', () => {
      period = button.dataset.period;
      document.querySelectorAll('[data-period]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      reload();
    });
  }
  api('/api/v1/me/settings').then((settings) => {
    if (live()) render(document.getElementById('opt-in'), optInLine(settings));
  }).catch(() => {});
}
