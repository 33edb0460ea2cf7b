// A new league (#/leagues/new): name, description, who may join, starting cash; the clock (the
// live market, or a replay of the past from a month or a random date, moved by the owner or on a
// schedule); the rules; the dates; the measure the standings use. Each field says next to it what
// it does. Fields left empty are left out of the request: the server's defaults apply.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { monthPicker, replayOptions, setupMonthPicker } from '/replay.js';
import { toast } from '/components/toast.js';
import { MAX_DAYS } from '/components/advance-panel.js';
import { METRICS } from '/leagues.js';
import { formatDate, typedDecimal } from '/format.js';

const INTERVALS = [['15m', '15 minutes'], ['1h', 'hour'], ['6h', '6 hours'], ['12h', '12 hours'], ['1d', 'day'], ['7d', 'week']];

/** Where a refusal shows: a field's own error line (`errorId`), and the field that gets the focus (`focusId`). */
const at = (id) => ({ errorId: `${id}-error`, focusId: id });
const START = { errorId: 'league-start-error', focusId: 'league-month' };
const SCHEDULE = { errorId: 'league-schedule-error', focusId: 'league-days' };
const FORM = { errorId: 'league-error', focusId: null };

/** By the server's code. */
const SHOWN_FOR_CODE = {
  invalid_name: at('league-name'), invalid_starting_cash: at('league-cash'), invalid_replay_start: START,
  invalid_advance: SCHEDULE, invalid_dates: at('league-ends'), invalid_metric: at('league-metric'),
};
/** By the field a message names first ("rules.maxPositionPercent must be ...", "'clock.advance.days' must be ...", "startsAt must be ..."). */
const SHOWN_FOR_FIELD = {
  'rules.commissionPerTrade': at('league-commission'), 'rules.commissionPercent': at('league-commission-percent'),
  'rules.maxPositionPercent': at('league-max-position'), 'rules.minimumPrice': at('league-min-price'),
  'rules.maxHoldings': at('league-max-holdings'), 'clock.advance': SCHEDULE, startsAt: at('league-starts'), endsAt: at('league-ends'),
};

/** Where the server's refusal `error` shows: the field its message names, else its code's, else under the form. */
function shownAt(error) {
  const named = /\b(rules\.\w+|clock\.advance|startsAt|endsAt)\b/.exec(error.message ?? '')?.[1];
  return SHOWN_FOR_FIELD[named] ?? SHOWN_FOR_CODE[error.code] ?? FORM;
}

/** A field with its help beside it (under it on a phone). `control` is the input's markup. */
function field(id, label, control, help) {
  return html`<div class="field-help">
    <div><label for="${id}">${label}</label>${control}<p class="error" id="${id}-error" role="alert"></p></div>
    <p class="help small" id="${id}-help">${help}</p></div>`;
}

/** A checkbox with its help beside it. */
function checkField(id, label, help, checked) {
  return html`<div class="field-help">
    <label class="check row" for="${id}"><input type="checkbox" id="${id}" aria-describedby="${id}-help" ${checked ? 'checked' : ''}> ${label}</label>
    <p class="help small" id="${id}-help">${help}</p></div>`;
}

function input(id, { value = '', mode = 'text', type = 'text', extra = '' } = {}) {
  return html`<input id="${id}" type="${type}" inputmode="${mode}" value="${value}" autocomplete="off" aria-describedby="${id}-help ${id}-error" ${extra}>`;
}

/** A datetime-local field's value as the API's instant ("2026-12-01T09:30:00Z"); null when empty. */
function instant(value) {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A decimal field as typed, without thousands separators or symbols; null when empty. */
function decimal(id) { return typedDecimal(document.getElementById(id).value); }

/** Shows `message` where `place` says, and moves the focus to its field. */
function show(place, message) {
  document.getElementById(place.errorId).textContent = message;
  if (place.focusId) document.getElementById(place.focusId).focus();
}

export default async function newLeagueScreen({ live }) {
  view(html`<h1>Create a league</h1><p class="loading">Loading…</p>`);
  const options = await replayOptions();
  if (!live()) return;
  const { firstDate, lastDate } = options;
  view(html`<h1>Create a league</h1>
    <form id="league-form" class="card league-form" novalidate>
      ${field('league-name', 'Name', input('league-name', { extra: html`maxlength="50" required` }), 'Players see it in their list of leagues and on the standings.')}
      ${field('league-description', 'Description (optional)',
        html`<textarea id="league-description" rows="2" maxlength="500" aria-describedby="league-description-help league-description-error"></textarea>`,
        'A line about the league: who it is for, what you play for.')}
      <fieldset aria-describedby="visibility-help"><legend>Who may join</legend>
        <div class="field-help"><div>
          <label class="check"><input type="radio" name="visibility" value="private" checked> Private: only players with the code</label>
          <label class="check"><input type="radio" name="visibility" value="public"> Public: anyone can find it and join</label></div>
          <p class="help small" id="visibility-help">A private league's code is shown on its page, to you only: send it to your friends. A public league is listed under Public leagues.</p></div>
      </fieldset>
      ${field('league-cash', 'Starting cash', input('league-cash', { value: '100000', mode: 'decimal' }), 'Every player starts with the same virtual cash (100 to 10,000,000 dollars).')}

      <fieldset aria-describedby="clock-help"><legend>Clock</legend>
        <div class="field-help"><div>
          <label class="check"><input type="radio" name="clock" value="live" checked> Live: today's real prices</label>
          <label class="check"><input type="radio" name="clock" value="replay"> Replay: the market of the past</label></div>
          <p class="help small" id="clock-help">Live leagues trade at the latest prices, as the market moves. In a replay every player trades on the same past date, at its close, and the clock moves forward for everyone at once.</p></div>
      </fieldset>
      <div id="replay-fields" hidden>
        <fieldset aria-describedby="league-start-help"><legend>Replay starts</legend>
          <div class="field-help"><div>
            <label class="check switch-label" for="league-random"><input type="checkbox" role="switch" class="switch" id="league-random"> Random date</label>
            ${monthPicker('league', options, 'league-start-error')}
            <p class="error" id="league-start-error" role="alert"></p></div>
            <p class="help small" id="league-start-help">The replay starts on the month's first trading day. With a random date, the league picks one for everyone. The history runs from ${formatDate(firstDate)} to ${formatDate(lastDate)}.</p></div>
        </fieldset>
        <fieldset aria-describedby="league-schedule-help"><legend>Moving the clock</legend>
          <div class="field-help"><div>
            <label class="check"><input type="radio" name="advance" value="manual" checked> By me, from the league's page</label>
            <label class="check"><input type="radio" name="advance" value="scheduled"> On a schedule</label>
            <div class="row" id="schedule-fields" hidden>
              <div class="field"><label for="league-every">Every</label>
                <select id="league-every" aria-describedby="league-schedule-error">${INTERVALS.map(([value, label]) => html`<option value="${value}" ${value === '1d' ? 'selected' : ''}>${label}</option>`)}</select></div>
              <div class="field"><label for="league-days">Trading days each time</label>
                <input id="league-days" type="number" inputmode="numeric" min="1" max="${MAX_DAYS}" value="1" aria-describedby="league-schedule-error"></div>
            </div>
            <p class="error" id="league-schedule-error" role="alert"></p></div>
            <p class="help small" id="league-schedule-help">By hand, you move everyone forward when you like (a day, a week, a month). On a schedule the league moves by itself, for example 1 trading day every hour: a year of history then takes about ten days.</p></div>
        </fieldset>
      </div>

      <h2>Rules</h2>
      <p class="small muted">Leave a field empty for no limit.</p>
      ${field('league-commission', 'Commission per trade ($)', input('league-commission', { mode: 'decimal', extra: html`placeholder="0.00"` }),
        'A flat fee taken from cash on every buy and sell, like a broker\'s. It makes trading often cost something.')}
      ${field('league-commission-percent', 'Commission as a share of each trade (%)', input('league-commission-percent', { mode: 'decimal', extra: html`placeholder="0.00"` }),
        'Taken on the amount of each trade: 0.10 % of a $10,000 buy is $10. Can be combined with the flat fee.')}
      ${field('league-max-position', 'Largest position (% of equity)', input('league-max-position', { mode: 'decimal', extra: html`placeholder="No limit"` }),
        'No buy may make one stock more than this share of the player\'s equity (25 means a quarter). It forces players to spread their money.')}
      ${field('league-min-price', 'Lowest price a stock may be bought at ($)', input('league-min-price', { mode: 'decimal', extra: html`placeholder="No limit"` }),
        'Stocks priced below this cannot be bought (5.00 keeps out penny stocks, whose prices jump around).')}
      ${field('league-max-holdings', 'Most different stocks held', input('league-max-holdings', { mode: 'numeric', extra: html`placeholder="No limit"` }),
        'How many companies a player may hold at once.')}
      <div id="market-hours-field">${checkField('league-market-hours', 'Trade only while the market is open',
        'Orders are taken from 9:30 AM to 4:00 PM New York time on trading days only. Off: orders outside those hours fill at the last price.', false)}</div>
      ${checkField('league-fractional', 'Players may trade fractions of a share',
        'On: orders of 0.5 share, or of $250 worth, down to a millionth of a share. Off: whole shares only (an order by amount buys whole shares).', false)}
      ${checkField('league-late-join', 'Players may join after the start', 'Off: once the league has started, no one new can join.', true)}
      ${checkField('league-holdings-visible', "Players see each other's holdings and trades",
        'Everyone always sees the standings (equity, return, rank). On: they also see what each player holds and trades. You, the owner, always do.', false)}

      <h2>Dates and standings</h2>
      ${field('league-starts', 'Starts (optional)', input('league-starts', { type: 'datetime-local' }),
        'Empty: the league starts now. Before the start players can join but not trade. In your own time zone.')}
      ${field('league-ends', 'Ends (optional)', input('league-ends', { type: 'datetime-local' }),
        'Empty: the league runs until you delete it. At the end trading stops and the standings are final.')}
      ${field('league-metric', 'Rank players by',
        html`<select id="league-metric" aria-describedby="league-metric-help league-metric-error">${METRICS.map(([id, label]) => html`<option value="${id}">${label}</option>`)}</select>`,
        html`<strong>Return</strong>: how much the portfolio grew. <strong>Sharpe ratio</strong>: return for the risk taken, so steady gains beat wild swings. <strong>Largest fall</strong>: the smallest drop from a high wins. <strong>vs S&amp;P 500</strong>: return beyond the index's over the same days. Anyone can switch the view; this is the one shown first.`)}

      <p class="error" id="league-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="create-league">Create league</button><a class="button" href="#/leagues">Cancel</a></div>
    </form>`);

  const form = document.getElementById('league-form');
  const picker = setupMonthPicker('league', options);
  const random = document.getElementById('league-random');
  const checked = (name) => form.querySelector(`[name="${name}"]:checked`).value;

  const update = () => {
    const replay = checked('clock') === 'replay';
    document.getElementById('replay-fields').hidden = !replay;
    document.getElementById('market-hours-field').hidden = replay;   // a replay fills at the day's close
    document.getElementById('schedule-fields').hidden = checked('advance') !== 'scheduled';
    picker.month.disabled = picker.year.disabled = random.checked;
  };
  random.addEventListener('change', update);
  for (const radio of form.querySelectorAll('[name="clock"], [name="advance"]')) radio.addEventListener('change', update);
  update();
  document.getElementById('league-name').focus();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const node of form.querySelectorAll('.error')) node.textContent = '';
    const name = document.getElementById('league-name').value.trim();
    if (!name) { show(at('league-name'), 'Give the league a name.'); return; }
    const startsAt = instant(document.getElementById('league-starts').value);
    const endsAt = instant(document.getElementById('league-ends').value);
    for (const [id, value] of [['league-starts', startsAt], ['league-ends', endsAt]]) {
      if (value === undefined) { show(at(id), 'Enter a day and a time, or leave it empty.'); return; }
    }
    const body = { name, visibility: checked('visibility') };
    const description = document.getElementById('league-description').value.trim();
    if (description) body.description = description;
    const cash = decimal('league-cash');
    if (cash) body.startingCash = cash;
    if (checked('clock') === 'replay') {
      // A day count the field cannot read goes as null: the server says what it takes.
      const days = document.getElementById('league-days').valueAsNumber;
      body.clock = {
        mode: 'replay',
        start: random.checked ? 'random' : picker.value(),
        advance: checked('advance') === 'scheduled' ? { every: document.getElementById('league-every').value, days: Number.isNaN(days) ? null : days } : 'manual',
      };
    } else {
      body.clock = { mode: 'live' };
    }
    const rules = {};
    const text = { commissionPerTrade: 'league-commission', commissionPercent: 'league-commission-percent',
                   maxPositionPercent: 'league-max-position', minimumPrice: 'league-min-price' };
    for (const [key, id] of Object.entries(text)) { const value = decimal(id); if (value) rules[key] = value; }
    const holdings = decimal('league-max-holdings');
    if (holdings) {
      if (!/^\d+$/.test(holdings)) { show(at('league-max-holdings'), 'Enter a whole number of stocks, or leave it empty.'); return; }
      rules.maxHoldings = Number.parseInt(holdings, 10);
    }
    if (body.clock.mode === 'live') rules.marketHoursOnly = document.getElementById('league-market-hours').checked;
    rules.lateJoin = document.getElementById('league-late-join').checked;
    if (document.getElementById('league-fractional').checked) rules.allowFractionalShares = true;
    rules.holdingsVisible = document.getElementById('league-holdings-visible').checked;
    body.rules = rules;
    if (startsAt) body.startsAt = startsAt;
    if (endsAt) body.endsAt = endsAt;
    body.defaultMetric = document.getElementById('league-metric').value;

    const button = document.getElementById('create-league');
    button.disabled = true;
    button.textContent = 'Creating…';
    try {
      const league = await api('/api/v1/leagues', { method: 'POST', body });
      toast(`Created ${league.name}.`);
      location.hash = `#/leagues/${league.id}`;
    } catch (error) {
      if (!live()) return;
      const place = shownAt(error);
      show(place, errorMessage(error));
      if (place !== FORM) document.getElementById('league-error').textContent = 'The league was not created: see the message above.';
      button.disabled = false;
      button.textContent = 'Create league';
    }
  });
}
