// Help (#/help): how buying, selling, charts and P&L work, how a replay of the past is played
// (profiles, time, trading at a day's close, trends, the report), leagues, people (what others see,
// following, blocking, achievements), notifications, price alerts and top-ups (#/help/starting-over
// opens there), and options (calls and puts with an example each, exercise and expiry,
// writing and assignment, time decay, how prices are modelled; #/help/options opens there). Open to
// everyone; a signed-in player also finds the way to Learn's lessons here, and takes the first run's
// tour (find a company, buy a share, see it in the portfolio) again.
import { html } from '/html.js';
import { navigate, view } from '/router.js';
import { currentSession } from '/session.js';
import { firstRunStatus, startFirstRun } from '/components/first-run.js';
import { errorMessage } from '/api.js';
import { toast } from '/components/toast.js';

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

/** The people topics: [title, text]. */
const PEOPLE_TOPICS = [
  ['What others can see', html`Nothing of yours is shown unless you choose: your cash, orders and history stay private. On your profile (<strong>People</strong>, then <strong>My profile</strong>) you choose for each portfolio: <strong>Private</strong>, <strong>Public</strong> (its return, and each holding as a share of the whole, never amounts) or <strong>Public with amounts</strong> (how many shares, and what they are worth). Your username, display name, picture, the date you joined and the public leagues you play in are public.`],
  ['Following and the feed', html`Find a player by the start of their username in <strong>People</strong>, open their profile and tap <strong>Follow</strong>. Your <strong>Feed</strong> then shows the trades they make in the portfolios they share, newest first, and the public leagues they join. If they make a portfolio private again, its trades leave your feed at once.`],
  ['Blocking', html`On a player's profile, tap <strong>Block</strong>: you stop following each other, and neither of you sees the other's profile, trades or name in searches. Unblock them from your own profile.`],
  ['Achievements', html`Things worth doing earn a badge on your profile, once each, with the date: your first trade, your first profit, ten trades, holding five sectors at once, beating the S&amp;P 500 over a month, a podium in a league of five or more, holding on through a bear market in a replay, a week or a month of signing in every day, and more. Your own profile lists the ones still to earn. Players who follow you see the ones you earn in their feed.`],
];

/** Notifications and starting over: [id, title, text]. */
const INBOX_TOPICS = [
  ['inbox', 'Notifications', html`The bell (<strong>Inbox</strong>) counts what happened while you were away: an achievement, a price alert, a new follower, someone joining your league, the end of a league with your final rank. Open it to read them; each leads to where it is about. In <a href="#/settings">Settings</a> you can also get them as <strong>browser notifications</strong> on a device, even when Bullpen is closed, and choose which kinds.`],
  ['alerts', 'Price alerts', html`On a company's page, under <strong>Price alerts</strong>, ask to be told when its price rises to or above a value, falls to or below one, or moves by some percent in a day. Alerts watch the live market, a few seconds apart; each tells you once, then waits until you <strong>re-arm</strong> it. You can keep up to 50; Settings lists them all.`],
  ['starting-over', 'Starting over: top-ups and resets', html`Lost almost everything? When your <strong>Main</strong> portfolio (your first live one) is worth less than a tenth of its starting cash, the portfolio screen offers a <strong>top-up</strong> back to the starting cash, once every 7 days. It shows in History as a deposit, and your return counts it as money you put in, never as a gain: the loss stays on your record. A topped-up portfolio leaves the global leaderboard until you reset it, so that a top-up is a second chance, not a way to climb a leaderboard. Or <strong>Reset</strong> the portfolio to start it over from nothing (its past stays in History).`],
];

/** The option topics: [id, title, paragraphs]. The figures are examples, not prices from the market. */
const OPTION_TOPICS = [
  ['options-call', 'A call: the right to buy', [html`A <strong>call</strong> gives you the right, not the duty, to <em>buy</em> 100 shares at a set price, the <strong>strike</strong>, until a date, the <strong>expiration</strong>. You pay for that right up front: the <strong>premium</strong>, quoted per share.`,
    html`<strong>Example.</strong> AAPL trades at $250. You buy one call with a $260 strike expiring in a month, at $4.00 a share: you pay $400 (4.00 × 100 shares). If AAPL is at $275 at expiry, the call lets you buy at $260 what is worth $275: it is worth $15 a share, $1,500, and your profit is $1,500 − $400 = $1,100. If AAPL stays below $260, the call expires worthless and you lose the $400, never more. Your <strong>break-even</strong> is the strike plus the premium: $264.`]],
  ['options-put', 'A put: the right to sell', [html`A <strong>put</strong> gives you the right to <em>sell</em> 100 shares at the strike until the expiration. It gains when the stock falls, and can protect shares you own, like insurance.`,
    html`<strong>Example.</strong> MSFT trades at $400. You buy one put with a $390 strike at $6.00 a share: $600. If MSFT falls to $350, the put lets you sell at $390 what is worth $350: $40 a share, $4,000, a profit of $3,400. If MSFT stays above $390, the put expires worthless and you lose the $600. Break-even: the strike less the premium, $384.`]],
  ['options-trading', 'Buying and selling contracts', [html`On a company's page, open <strong>Options</strong>, choose <strong>Calls</strong> or <strong>Puts</strong> and an expiration, and pick a strike. Its sheet shows the bid and ask, the break-even, the days left, the greeks and a chart of your profit or loss at expiry. You buy at the <strong>ask</strong> and sell at the <strong>bid</strong>, the lower of the two: the gap between them is what trading costs you. Prices are per share and a contract is 100 shares, so a contract costs the price times 100. <strong>ITM</strong> marks a contract <em>in the money</em> (it would be worth exercising now); <strong>near</strong> marks the strikes either side of the stock's price. A league may allow stocks only.`]],
  ['options-exercise', 'Exercising, and what happens at expiry', [html`Until its expiration you can <strong>exercise</strong> a contract in the money from your portfolio: a call buys 100 shares a contract at the strike (the cash must be there), a put sells 100 shares a contract at the strike (the shares must be there). What you paid for the contract is not lost: it becomes part of the shares' cost (a call) or comes off what they bring (a put). Usually selling the contract brings more than exercising it, because exercising throws away the time value left in it.`,
    html`At the close of the expiration day, Bullpen settles every contract you still hold: one <strong>in the money</strong> is exercised automatically when you have the cash (calls) or the shares (puts), and otherwise <strong>settled in cash</strong> for its intrinsic value (what exercising it would be worth); one <strong>out of the money</strong> expires worthless. In a replay this happens as you advance time, and the summary of the move lists each contract; History shows them with the <strong>Options</strong> filter.`]],
  ['options-writing', 'Writing options: covered calls and cash-secured puts', [html`Where the portfolio's rules allow it (<strong>option writing</strong>, off unless the portfolio or the league turns it on), you can also <strong>write</strong> a contract: sell one you do not hold. You receive the premium now and take on the other side: the duty to sell the shares at the strike (a call) or to buy them at the strike (a put) if the holder wants to. Bullpen lets you write only what you can honour: a <strong>covered call</strong> needs 100 shares a contract that you own and have not committed elsewhere, and a <strong>cash-secured put</strong> needs the cash to buy the shares at the strike (strike × 100 a contract), not counting the premium. While the contract is open those shares cannot be sold and that cash cannot be spent.`,
    html`<strong>Example.</strong> You own 100 KO at $60 and write one $65 call expiring next month at $1.20: you receive $120. If KO closes below $65 on the expiration day, the call expires worthless and the $120 is yours to keep. If it closes at $70, you are <strong>assigned</strong>: your 100 shares are sold at $65, so you give up the rise above $65 in exchange for the premium. You can end the duty at any time before expiry by buying the contract back (<strong>Buy to close</strong>), at the ask. In Bullpen assignment happens only at the close of the expiration day, never earlier; in real markets a holder may exercise early.`]],
  ['options-decay', 'Why most options expire worthless', [html`An option's price is its <strong>intrinsic value</strong> (what exercising would be worth now, perhaps nothing) plus <strong>time value</strong>: the chance that the stock moves its way before expiry. Time value shrinks every day, faster near the end: that loss per day is <strong>theta</strong>. A call bought out of the money needs the stock to rise past the strike <em>and</em> the premium before the date; most of the time that does not happen, and the premium is lost. Buying options is a way to risk a small, known amount on a big move, not a way to win often.`]],
  ['options-model', 'How prices are modelled', [html`Bullpen has no real option quotes: every price comes from the <strong>Black-Scholes-Merton</strong> model, the textbook formula, fed with the stock's price as of your portfolio's clock (a replay's date), its <strong>realised volatility</strong> (how much it has moved: half the last month's, half the last year's), a risk-free interest rate of that time and the days left. The model's value is the <strong>mid</strong>; the bid and ask stand around it, wider away from the money and near expiry. <strong>Implied volatility</strong> is the volatility the model used. The greeks say how the price reacts: <strong>delta</strong> to a $1 move of the stock, <strong>gamma</strong> how delta itself changes, <strong>theta</strong> to a day passing, <strong>vega</strong> to a point of volatility, <strong>rho</strong> to a point of interest rates. Real markets price options from supply and demand, so real prices differ.`]],
];

export default function helpScreen({ params = [] } = {}) {
  view(html`<h1>How Bullpen works</h1>
    ${currentSession() ? html`<div class="card" id="tour-card"><h2 class="flush-top">Getting started</h2><p>Three steps to your first trade, shown above every screen as you go: find a company, buy a share, see it in your portfolio.</p>
      <button type="button" class="primary" id="take-tour">Take the tour</button></div>` : ''}
    ${currentSession() ? html`<div class="card gap-top" id="learn-link"><h2 class="flush-top">New to investing?</h2><p><a href="#/learn"><strong>Learn</strong></a>: short lessons in plain words (what a stock is, how an order fills, bubbles and crashes, calls and puts…), each with a quiz and something to try in Bullpen. The <a href="#/learn/glossary">glossary</a> explains the words.</p></div>` : ''}
    <div class="card gap-top"><h2 class="flush-top">Buying</h2><p>Open <a href="#/market">Market</a>, search for a company by its symbol (like MSFT) or name (like “micro”), and open its page. Tap <strong>Buy</strong>, choose how many shares, review the estimated cost and confirm. The order fills at the market price: the latest price, or the last close while the market is closed. Market times are New York time (ET), the exchange's own.</p></div>
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
    <h2 id="people-help">People: following and sharing</h2>
    <p>Follow other players to learn from what they do. Open <a href="#/people">People</a> to find them.</p>
    ${PEOPLE_TOPICS.map(([title, text]) => html`<div class="card gap-top"><h3 class="flush-top">${title}</h3><p>${text}</p></div>`)}
    <h2 id="inbox-help">Notifications, alerts and starting over</h2>
    ${INBOX_TOPICS.map(([id, title, text]) => html`<div class="card gap-top" id="${id}" tabindex="-1"><h3 class="flush-top">${title}</h3><p>${text}</p></div>`)}
    <h2 id="options-help" tabindex="-1">Options: calls and puts</h2>
    <p>An option is a contract about 100 shares of a company: the right to buy them (a call) or to sell them (a put) at a set price until a set date. You can lose all you paid for it, but never more. Open a company's page and scroll to <strong>Options</strong>.</p>
    ${OPTION_TOPICS.map(([id, title, paragraphs]) => html`<div class="card gap-top" id="${id}"><h3 class="flush-top">${title}</h3>${paragraphs.map((text) => html`<p>${text}</p>`)}</div>`)}
    ${currentSession() ? '' : html`<p><a href="#/login">Back to log in</a></p>`}`);
  const tour = document.getElementById('take-tour');
  // Worded by the run's status once it is known (on a direct load, the first read may still be out).
  if (tour) {
    firstRunStatus().then((status) => {
      tour.textContent = status === 'active' ? 'Start the tour again' : status === 'finished' ? 'Take the tour again' : 'Take the tour';
    });
  }
  tour?.addEventListener('click', async () => {
    tour.disabled = true;
    try {
      await startFirstRun();
      navigate('#/market');
    } catch (error) {
      toast(errorMessage(error));
      tour.disabled = false;
    }
  });
  const target = params[0] === 'options' ? 'options-help' : INBOX_TOPICS.some(([id]) => id === params[0]) ? params[0] : null;
  if (target) {
    const section = document.getElementById(target);
    section.scrollIntoView();
    section.focus({ preventScroll: true });
  }
}
