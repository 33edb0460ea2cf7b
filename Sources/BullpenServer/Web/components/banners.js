// The banners above every screen: offline, demo market, market closed (with the next open in New
// York time, which is the exchange's), and, while a replay portfolio is selected, its date
// instead (the real market's hours do not matter to a replay).
import { html, render } from '/html.js';
import { onOffline } from '/api.js';
import { market, onMarketChange } from '/market-status.js';
import { currentPortfolio, isReplay, onPortfolioChange } from '/portfolios.js';
import { formatMarketTime, formatSessionDate } from '/format.js';

const node = document.getElementById('banners');
let offline = false;

function replayBanner(portfolio) {
  return html`<div class="banner replay" data-testid="replay-banner"><a href="#/portfolio">Replay · ${formatSessionDate(portfolio.clock.date)}</a>
    · ${portfolio.name}${portfolio.clock.ended ? ' · ended' : ''}</div>`;
}

function draw() {
  const portfolio = currentPortfolio();
  const replay = isReplay(portfolio);
  render(node, html`
    ${offline ? html`<div class="banner offline">You are offline. We will retry; nothing you did is lost.</div>` : ''}
    ${market.status?.simulated ? html`<div class="banner demo" data-testid="demo-banner">Demo market, simulated prices: these companies are invented.</div>` : ''}
    ${replay ? replayBanner(portfolio) : ''}
    ${!replay && market.clock && !market.clock.isOpen ? html`<div class="banner closed" data-testid="closed-banner">The market is closed. Orders fill at the last price. Next open: ${formatMarketTime(market.clock.nextOpen)}.</div>` : ''}`);
}

/** Draws the banners now and whenever the market, the network or the selected portfolio changes. */
export function startBanners() {
  onOffline((value) => { if (value !== offline) { offline = value; draw(); } });
  onMarketChange(draw);
  onPortfolioChange(draw);
  draw();
}
