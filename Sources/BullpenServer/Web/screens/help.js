// Help (#/help): how buying, selling, charts and P&L work, and how a replay of the past is played
// (profiles, time, trading at a day's close, trends, the report), and leagues. Open to everyone.
import { html } from '/html.js';
import { view } from '/router.js';
import { currentSession } from '/session.js';

/** The replay topics: [title, text]. */
const REPLAY_TOPICS = [
  ['Making a profile', html`In <strong>Replay</strong>, tap <strong>New profile</strong>. Keep the name offered (“Profile 1”) or type your own: each profile needs a name of its own, and you can have up to 20 portfolios, live and replay together. Choose your starting cash, then a month and year to start in (the replay starts on that month's first trading day), or switch on <strong>Random date</strong>. Start with cash only, with 5 random stocks, or with a <strong>scenario</strong>: a moment of history such as the dot-com bubble, which brings its own date and stocks. Random stocks and a scenario's stocks are bought with half your cash.`],
  ['Time, and moving it forward', html`All prices are history, so a profile's date is always in the past and it does not move by itself. On the portfolio screen, tap <strong>1 day</strong>, <strong>1 week</strong> (5 trading days) or <strong>1 month</strong> (21), or choose up to 252 trading days (about a year) on the slider and tap <strong>Advance</strong>. Afterwards you see how your holdings and the S&amp;P 500 moved. The banner at the top always shows the replay's date.`],
  ['Searching for a company', html`In <strong>Market</strong>, type a symbol (MSFT) or part of a name (“micro”) and pick a suggestion with a tap or the arrow keys and Enter. You only find companies listed on your replay's date: in 1995 there is no Google yet. Prices, movers and charts all stop at that date.`],
  ['Buying', html`On a company's page, tap <strong>Buy</strong> and choose how many shares. The day's market is over, so your order fills at that day's close. You can only buy what your cash pays for: the order sheet tells you when it does not, and how many shares you can afford. A replay holds at most 10 different stocks.`],
  ['Selling', html`On the page of a company you hold (or through <strong>Trends</strong> in your holdings), tap <strong>Sell</strong> and choose how many shares, up to the ones you own. The money from the sale goes to your cash.`],
  ['Cash and value', html`The portfolio screen shows your <strong>cash</strong> (what you can spend), your <strong>equity</strong> (cash plus what your shares are worth at the day's close) and your total return. Tap <strong>Portfolio</strong> in the navigation, or the replay banner, from any screen.`],
  ['Trends graphs', html`On a company's page in a replay, the graph shows its closing prices for the last <strong>20 days</strong> or <strong>3 months</strong> up to your date. When you own the stock, a dashed <strong>break-even</strong> line marks the average price you paid: above it, selling would make a profit.`],
  ['Switching profiles', html`In <strong>Replay</strong>, tap <strong>Select</strong> next to a profile to play it (or pick it in the list on the portfolio screen). Everything is saved as you go: you can close the page at any time and carry on later from any device.`],
  ['Deleting a profile', html`In <strong>Replay</strong>, tap <strong>Delete</strong> next to a profile and confirm. A deleted profile cannot be restored.`],
  ['Ending a replay and the report', html`Tap <strong>End replay</strong> on the portfolio screen when you are done (a replay also stops on the last day of the data). The <strong>Report</strong> shows your return against the S&amp;P 500, your largest fall, your best and worst trades, how many days you were invested, what buying and holding would have made, and your equity curve. <strong>Reset</strong> plays the profile again from its start.`],
];

/** The league topics: [title, text]. */
const LEAGUE_TOPICS = [
  ['Joining a league', html`In <strong>Leagues</strong>, type the code a league's owner gave you under <strong>Join with a code</strong>, or pick a league under <strong>Public leagues</strong>. Joining gives you a new portfolio for that league, with its starting cash.`],
  ['Trading in a league', html`On the league's page, tap <strong>Trade in this league</strong>: your league portfolio is selected, and Market, the company pages and History work on it as usual. The league's rules apply to every order (for example at most a quarter of your money in one stock) and the order sheet tells you when one is broken. A replay league's clock is moved for everyone by its owner or its schedule.`],
  ['The standings', html`Players are ranked by <strong>return</strong>, by <strong>Sharpe ratio</strong>, by <strong>largest fall</strong> or <strong>against the S&amp;P 500</strong>; switch between them above the table. The Sharpe ratio compares your gains with how much your portfolio's value jumps around from day to day: steady gains score higher than the same gains reached through wild swings. Your own line is highlighted.`],
  ['Running a league', html`Tap <strong>Create a league</strong>, name it, choose the live market or a replay of the past and set the rules: each field says what it does. On the league's page you see its code (with <strong>Copy</strong>), can make a new code, move a replay's clock, remove a player, hand the league over, download the standings and trades, or delete it.`],
  ['Leaving', html`Tap <strong>Leave league</strong> on its page. Your league portfolio stays, read-only. The owner cannot leave: hand the league over to another player first, or delete it.`],
];

export default function helpScreen() {
  view(html`<h1>How Bullpen works</h1>
    <div class="card"><h2 class="flush-top">Buying</h2><p>Open <a href="#/market">Market</a>, search for a company by its symbol (like MSFT) or name (like “micro”), and open its page. Tap <strong>Buy</strong>, choose how many shares, review the estimated cost and confirm. The order fills at the market price: the latest price, or the last close while the market is closed. Market times are New York time (ET), the exchange's own.</p></div>
    <div class="card gap-top"><h2 class="flush-top">Selling</h2><p>On the page of a company you hold, tap <strong>Sell</strong>. You can sell up to the shares you own. The difference between what you sold for and what those shares cost you is your <em>realized</em> profit or loss.</p></div>
    <div class="card gap-top"><h2 class="flush-top">When a company's data ended</h2><p>Some companies in the history stopped trading (they were bought, merged or delisted), so their prices end on a date, marked <strong>Data ended</strong>. You cannot buy them; shares you hold keep their last price and you can sell them at it.</p></div>
    <div class="card gap-top"><h2 class="flush-top">Reading a chart</h2><p>The line shows closing prices over the range you pick (5 days to the whole history). Move your finger, mouse, or the arrow keys over it to see the date and price. When you own the stock, a dashed line marks your break-even: above it you are in profit.</p></div>
    <div class="card gap-top"><h2 class="flush-top">What P&amp;L means</h2><p><strong>P&amp;L</strong> is profit and loss. <em>Unrealized</em> P&amp;L is what you would gain or lose if you sold now; <em>realized</em> P&amp;L is locked in by selling. Equity is your cash plus the value of your holdings; total return compares it with your starting cash, and <em>Today</em> compares it with the last close before today. Gains are shown with ▲ and a plus sign, losses with ▼ and a minus sign.</p></div>
    <h2 id="replay-help">Replay: playing the past</h2>
    <p>A replay profile starts on a day of the market's history with virtual cash. You trade at that day's prices, then move time forward and see what happened. Open <a href="#/profiles">Replay</a> to start one.</p>
    ${REPLAY_TOPICS.map(([title, text]) => html`<div class="card gap-top"><h3 class="flush-top">${title}</h3><p>${text}</p></div>`)}
    <h2 id="league-help">Leagues: playing against others</h2>
    <p>A league is a game between players who all start with the same cash and rules. Open <a href="#/leagues">Leagues</a> to join or create one.</p>
    ${LEAGUE_TOPICS.map(([title, text]) => html`<div class="card gap-top"><h3 class="flush-top">${title}</h3><p>${text}</p></div>`)}
    ${currentSession() ? '' : html`<p><a href="#/login">Back to log in</a></p>`}`);
}
