// Help (#/help): how buying, selling, charts and P&L work. Open to everyone.
import { html } from '/html.js';
import { view } from '/router.js';
import { currentSession } from '/session.js';

export default function helpScreen() {
  view(html`<h1>How Bullpen works</h1>
    <div class="card"><h2 class="flush-top">Buying</h2><p>Open <a href="#/market">Market</a>, search for a company by its symbol (like MSFT) or name (like “micro”), and open its page. Tap <strong>Buy</strong>, choose how many shares, review the estimated cost and confirm. The order fills at the market price: the latest price, or the last close while the market is closed. Market times are New York time (ET), the exchange's own.</p></div>
    <div class="card gap-top"><h2 class="flush-top">Selling</h2><p>On the page of a company you hold, tap <strong>Sell</strong>. You can sell up to the shares you own. The difference between what you sold for and what those shares cost you is your <em>realized</em> profit or loss.</p></div>
    <div class="card gap-top"><h2 class="flush-top">When a company's data ended</h2><p>Some companies in the history stopped trading (they were bought, merged or delisted), so their prices end on a date, marked <strong>Data ended</strong>. You cannot buy them; shares you hold keep their last price and you can sell them at it.</p></div>
    <div class="card gap-top"><h2 class="flush-top">Reading a chart</h2><p>The line shows closing prices over the range you pick (5 days to the whole history). Move your finger, mouse, or the arrow keys over it to see the date and price. When you own the stock, a dashed line marks your break-even: above it you are in profit.</p></div>
    <div class="card gap-top"><h2 class="flush-top">What P&amp;L means</h2><p><strong>P&amp;L</strong> is profit and loss. <em>Unrealized</em> P&amp;L is what you would gain or lose if you sold now; <em>realized</em> P&amp;L is locked in by selling. Equity is your cash plus the value of your holdings; total return compares it with your starting cash, and <em>Today</em> compares it with the last close before today. Gains are shown with ▲ and a plus sign, losses with ▼ and a minus sign.</p></div>
    ${currentSession() ? '' : html`<p><a href="#/login">Back to log in</a></p>`}`);
}
