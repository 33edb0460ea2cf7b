// The banners above every screen: offline, demo market, market closed (with the next open in New
// York time, which is the exchange's), and, while a replay portfolio is selected, its date
// instead (the real market's hours do not matter to a replay); while a league portfolio is
// selected, that it trades in a league.
import { html, render } from '/html.js';
import { onOffline } from '/api.js';
import { market, onMarketChange } from '/market-status.js';
import { currentPortfolio, isReplay, onPortfolioChange } from '/portfolios.js';
import { formatMarketTime, formatSessionDate } from '/format.js';

const node = document.getElementById('banners');
let offline = false;

function replayBanner(portfolio) {
  return html`<div class="banner replay" data-testid="replay-banner"><a href="#/portfolio">Replay · ${formatSessionDate(portfolio.clock.date)}</a>
    · ${portfolio.name}${portfolio.clock.ended ? ' · ended' : ''}${portfolio.leagueId ? html` · <a href="#/leagues/${portfolio.leagueId}">league</a>` : ''}</div>`;
}

function leagueBanner(portfolio) {
  return html`<div class="banner replay" data-testid="league-banner"><a href="#/leagues/${portfolio.leagueId}">League</a> · ${portfolio.name}${portfolio.closedAt ? ' · closed' : ''}</div>`;
}

function draw() {
  const portfolio = currentPortfolio();
  const replay = isReplay(portfolio);
  render(node, html`
    ${offline ? html`<div class="banner offline">You are offline. We will retry; nothing you did is lost.</div>` : ''}
    ${market.status?.simulated ? html`<div class="banner demo" data-testid="demo-banner">Demo market, simulated prices: these companies are invented.</div>` : ''}
    ${replay ? replayBanner(portfolio) : portfolio?.leagueId ? leagueBanner(portfolio) : ''}
    ${!replay && market.clock && !market.clock.isOpen ? html`<div class="banner closed" data-testid="closed-banner">The stock market is closed. ${portfolio?.rules?.marketHoursOnly ? 'Your league takes orders for shares only while it is open.' : 'Orders for shares fill at the last price.'} Coins trade around the clock. Next open: ${formatMarketTime(market.clock.nextOpen)}.</div>` : ''}`);
}

/** Draws the banners now and whenever the market, the network or the selected portfolio changes. */
export function startBanners() {
  onOffline((value) => { if (value !== offline) { offline = value; draw(); } });
  onMarketChange(draw);
  onPortfolioChange(draw);
  draw();
}
