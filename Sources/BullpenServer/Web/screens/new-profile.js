// A new replay profile (#/profiles/new): a name (the next free "Profile N" offered), starting
// cash, and where it starts: a month and year of the history (or a random date), with cash only
// or five random stocks; or a scenario, which brings its own date and stocks. Create starts it.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { loadPortfolios, selectPortfolio } from '/portfolios.js';
import { monthPicker, replayOptions, nextProfileName, setupMonthPicker } from '/replay.js';
import { toast } from '/components/toast.js';
import { formatDate, typedDecimal } from '/format.js';

const FIELD_OF = {
  portfolio_name_taken: 'profile-name-error', invalid_name: 'profile-name-error',
  invalid_starting_cash: 'profile-cash-error',
};

function scenarioText(scenario) {
  return `${scenario.description} Starts ${formatDate(scenario.start)} with ${scenario.symbols.join(', ')}.`;
}

export default async function newProfileScreen({ live }) {
  view(html`<h1>New profile</h1><p class="loading">Loading…</p>`);
  const [portfolios, options] = await Promise.all([loadPortfolios(), replayOptions()]);
  if (!live()) return;
  const { firstDate, lastDate, scenarios } = options;
  view(html`<h1>New profile</h1>
    <form id="profile-form" class="card" novalidate>
      <label for="profile-name">Name</label>
      <input id="profile-name" maxlength="50" autocomplete="off" value="${nextProfileName(portfolios)}" aria-describedby="profile-name-hint profile-name-error">
      <p class="small muted" id="profile-name-hint">Each profile has its own name: keep this one or type yours.</p>
      <p class="error" id="profile-name-error" role="alert"></p>
      <label for="profile-cash">Starting cash (100 to 10,000,000)</label>
      <input id="profile-cash" inputmode="decimal" value="100000" aria-describedby="profile-cash-error">
      <p class="error" id="profile-cash-error" role="alert"></p>
      <label class="check row" for="profile-fractional"><input type="checkbox" id="profile-fractional"> Trade fractions of a share (down to a millionth)</label>
      <fieldset>
        <legend>Start with</legend>
        <label class="check"><input type="radio" name="start-with" value="none" checked> Cash only</label>
        <label class="check"><input type="radio" name="start-with" value="random"> Cash and 5 random stocks, bought with half the cash</label>
        <label class="check"><input type="radio" name="start-with" value="scenario" ${scenarios.length ? '' : 'disabled'}> A scenario: a moment of history with its stocks, bought with half the cash</label>
      </fieldset>
      <div id="scenario-fields" hidden>
        <label for="profile-scenario">Scenario</label>
        <select id="profile-scenario" aria-describedby="scenario-description">${scenarios.map((s) => html`<option value="${s.id}">${s.name}</option>`)}</select>
        <p id="scenario-description" class="small">${scenarios.length ? scenarioText(scenarios[0]) : ''}</p>
      </div>
      <fieldset id="date-fields">
        <legend>Starting date</legend>
        <label class="check switch-label" for="random-date"><input type="checkbox" role="switch" class="switch" id="random-date"> Random date</label>
        ${monthPicker('start', options)}
        <p class="small muted">The replay starts on the month's first trading day. The history runs from ${formatDate(firstDate)} to ${formatDate(lastDate)}.</p>
      </fieldset>
      <p class="error" id="profile-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="create-profile">Create</button><a class="button" href="#/profiles">Cancel</a></div>
    </form>`);

  const form = document.getElementById('profile-form');
  const picker = setupMonthPicker('start', options);
  const random = document.getElementById('random-date');
  const scenario = document.getElementById('profile-scenario');
  const startWith = () => form.querySelector('[name="start-with"]:checked').value;

  const update = () => {
    const byScenario = startWith() === 'scenario';
    document.getElementById('scenario-fields').hidden = !byScenario;
    document.getElementById('date-fields').hidden = byScenario;   // a scenario has its own date
    picker.month.disabled = picker.year.disabled = random.checked;
  };
  random.addEventListener('change', update);
  for (const radio of form.querySelectorAll('[name="start-with"]')) radio.addEventListener('change', update);
  scenario.addEventListener('change', () => {
    document.getElementById('scenario-description').textContent = scenarioText(scenarios.find((s) => s.id === scenario.value));
  });
  update();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const id of ['profile-name-error', 'profile-cash-error', 'profile-error']) document.getElementById(id).textContent = '';
    const replay = {};
    if (startWith() === 'scenario') replay.scenario = scenario.value;
    else {
      replay.start = random.checked ? 'random' : picker.value();
      if (startWith() === 'random') replay.holdings = 'random';
    }
    const name = document.getElementById('profile-name').value.trim();
    const cash = typedDecimal(document.getElementById('profile-cash').value);
    const button = document.getElementById('create-profile');
    button.disabled = true;
    button.textContent = 'Creating…';
    try {
      const created = await api('/api/v1/portfolios', { method: 'POST', body: {
        ...(name ? { name } : {}), ...(cash ? { startingCash: cash } : {}), replay,
        ...(document.getElementById('profile-fractional').checked ? { fractionalShares: true } : {}),
      } });
      selectPortfolio(created.id);
      toast(`Created ${created.name}.`);
      location.hash = '#/portfolio';
    } catch (error) {
      if (!live()) return;
      document.getElementById(FIELD_OF[error.code] ?? 'profile-error').textContent = errorMessage(error);
      button.disabled = false;
      button.textContent = 'Create';
    }
  });
}
