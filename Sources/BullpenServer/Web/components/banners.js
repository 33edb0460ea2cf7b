// The banners above every screen: offline, demo market, market closed (with the next open in New
// York time, which is the exchange's).
import { html, render } from '/html.js';
import { onOffline } from '/api.js';
import { market, onMarketChange } from '/market-status.js';
import { formatMarketTime } from '/format.js';

const node = document.getElementById('banners');
let offline = false;

function draw() {
  render(node, html`
    ${offline ? html`<div class="banner offline">You are offline. We will retry; nothing you did is lost.</div>` : ''}
    ${market.status?.simulated ? html`<div class="banner demo" data-testid="demo-banner">Demo market, simulated prices: these companies are invented.</div>` : ''}
    ${market.clock && !market.clock.isOpen ? html`<div class="banner closed" data-testid="closed-banner">The market is closed. Orders fill at the last price. Next open: ${formatMarketTime(market.clock.nextOpen)}.</div>` : ''}`);
}

/** Draws the banners now and whenever the market or the network changes. */
export function startBanners() {
  onOffline((value) => { if (value !== offline) { offline = value; draw(); } });
  onMarketChange(draw);
  draw();
}
