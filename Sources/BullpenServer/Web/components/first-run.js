// The guided first run (index.html's #first-run, above the screens): a new player's three steps,
// find a company, buy a share, see it in the portfolio. It shows the step to take and where, on
// every screen, until the run is finished or skipped; Help starts it again. The server keeps where
// the player is (GET /api/v1/learn/first-run): this marks a company's page opened and the portfolio
// seen; a purchase counts by itself, from wherever it was made (asked again when a sheet closes).
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { currentSession, onSessionChange } from '/session.js';
import { toast } from '/components/toast.js';
import { liveRegion } from '/live-region.js';

const region = document.getElementById('first-run');
const dialog = document.getElementById('dialog');
/** Where the strip and each step done are said to screen readers (a live region that stays while the panel redraws). */
const say = liveRegion('first-run-status');
/** The server's run; null while unknown or signed out. */
let run = null;
/** The screen showing: { name, params }, from the router. */
let screen = { name: null, params: [] };
/** The company whose page the player last opened: the buy step links back to it. */
let lastStock = null;
/** The run finished during this visit: the panel says well done until it is closed. */
let finishedNow = false;
let marking = null;
/** Bumped by a skip, a start and a change of player: an answer asked for before then is dropped. */
let epoch = 0;
/** Whether the strip was said to screen readers since it appeared (the screen's focus goes past it). */
let introduced = false;

/** What the current step asks, on the screen showing: { text, link: [href, label] | null }. */
function guidance(step) {
  const here = screen.name;
  switch (step) {
    case 'find':
      return here === 'market'
        ? { text: html`Type a company's name or symbol in the search box below (try <strong>Apple</strong> or <strong>MSFT</strong>), then pick it from the list.`, link: null }
        : { text: html`Open <strong>Market</strong> and search for a company by its name or symbol.`, link: ['#/market', 'Open Market'] };
    case 'buy':
      return here === 'stock'
        ? { text: html`Tap <strong>Buy</strong> on this page, keep 1 share, check the cost and confirm. The money is virtual: nothing real is spent.`, link: null }
        : lastStock
          ? { text: html`Open ${lastStock}'s page and tap <strong>Buy</strong>.`, link: [`#/stock/${encodeURIComponent(lastStock)}`, `Open ${lastStock}`] }
          : { text: html`Open a company's page (search for one in <strong>Market</strong>) and tap <strong>Buy</strong>.`, link: ['#/market', 'Open Market'] };
    default:
      return { text: html`Open <strong>Portfolio</strong>: your share is under Holdings, with what it cost and what it is worth now.`, link: ['#/portfolio', 'Open Portfolio'] };
  }
}

/** What the panel last drew: it is drawn again only when that changes, so that a keyboard user's focus on it stays. */
let drawn = null;

function draw() {
  const active = run?.status === 'active';
  const shown = currentSession() && (active || finishedNow);
  const key = shown ? JSON.stringify([run.status, run.next, run.steps.map((step) => step.done), finishedNow,
    screen.name === ({ find: 'market', buy: 'stock' })[run.next], run.next === 'buy' ? lastStock : null]) : '';
  if (key === drawn) return;
  drawn = key;
  if (!shown) {
    region.hidden = true;
    render(region, '');
    introduced = false;
    return;
  }
  region.hidden = false;
  const position = run.steps.findIndex((step) => step.id === run.next);
  if (!introduced && active) {
    introduced = true;
    say(`Getting started, step ${position + 1} of ${run.steps.length}: ${run.steps[position].title.toLowerCase()}. The steps are above the screen.`);
  }
  const steps = html`<ol class="first-run-steps">${run.steps.map((step, index) => html`<li class="${step.done ? 'done' : index === position ? 'current' : ''}"
      ${index === position ? html`aria-current="step"` : ''}><span class="mark" aria-hidden="true">${step.done ? '✓' : index + 1}</span>
      ${step.title}${step.done ? html`<span class="visually-hidden"> (done)</span>` : ''}</li>`)}</ol>`;
  if (!active) {
    render(region, html`<div class="first-run-inner">
      <h2 id="first-run-title" class="first-run-title">Getting started: done</h2>${steps}
      <p id="first-run-hint">Well done: you found a company, bought a share and saw it in your portfolio. Next, short lessons in plain words, each with something to try.</p>
      <div class="actions"><a class="button primary" id="first-run-go" href="#/learn">Open Learn</a>
        <button type="button" id="first-run-close">Close</button></div></div>`);
    document.getElementById('first-run-close').addEventListener('click', () => { finishedNow = false; draw(); document.getElementById('main').focus(); });
    return;
  }
  const { text, link } = guidance(run.next);
  render(region, html`<div class="first-run-inner">
    <h2 id="first-run-title" class="first-run-title">Getting started · step ${position + 1} of ${run.steps.length}</h2>${steps}
    <p id="first-run-hint"><strong>${run.steps[position].title}.</strong> ${text}</p>
    <div class="actions">${link ? html`<a class="button primary" id="first-run-go" href="${link[0]}">${link[1]}</a>` : ''}
      <button type="button" id="first-run-skip">Skip the tour</button></div></div>`);
  document.getElementById('first-run-skip').addEventListener('click', skip);
}

/** Says what changed since the step `before`: the next step, or the run finished. */
function announce(before) {
  let words = '';
  if (run?.status === 'active' && before && run.next !== before) {
    words = `Getting started: step done. Next, ${run.steps.find((s) => s.id === run.next)?.title.toLowerCase()}.`;
  } else if (run?.status === 'finished' && before) {
    words = 'Getting started: all three steps done.';
  }
  if (words) say(words);
}

/** The latest read of the run: Help waits for it before it words its button. */
let reading = Promise.resolve();

function load() {
  reading = (async () => {
    if (!currentSession()) { run = null; draw(); return; }
    const asked = epoch;
    try {
      const answer = await api('/api/v1/learn/first-run');
      if (asked === epoch) run = answer;
    } catch { /* the strip stays as it was; the next screen asks again */ }
    draw();
  })();
  return reading;
}

/** Marks the step the screen showing completes, if any. */
async function progress() {
  if (run?.status !== 'active' || marking) return;
  const step = run.next === 'find' && screen.name === 'stock' ? 'find'
    : run.next === 'see' && screen.name === 'portfolio' ? 'see' : null;
  if (!step) { draw(); return; }
  const before = run.next, asked = epoch;
  marking = api(`/api/v1/learn/first-run/steps/${step}`, { method: 'POST' })
    .then((answer) => {
      if (asked !== epoch) return;
      run = answer;
      if (run.status === 'finished') finishedNow = true;
      announce(before);
    })
    .catch(() => { /* the panel stays on the step; the next screen tries again */ })
    .finally(() => { marking = null; draw(); });
  await marking;
}

async function skip() {
  epoch += 1;
  try {
    run = await api('/api/v1/learn/first-run', { method: 'PUT', body: { status: 'skipped' } });
    draw();
    document.getElementById('main').focus();
    toast('Tour skipped. Help starts it again whenever you like.');
  } catch (error) { toast(errorMessage(error)); }
}

/** Starts the run again from its first step (Help's button). */
export async function startFirstRun() {
  epoch += 1;
  run = await api('/api/v1/learn/first-run', { method: 'PUT', body: { status: 'active' } });
  finishedNow = false;
  lastStock = null;
  draw();
}

/** The run's status once the read under way, if any, has answered; null when unknown. */
export async function firstRunStatus() {
  await reading;
  return run?.status ?? null;
}

export function startFirstRunGuide() {
  window.addEventListener('bullpen:screen', (event) => {
    screen = event.detail;
    if (screen.name === 'stock' && screen.params[0]) lastStock = screen.params[0].toUpperCase();
    // A purchase may have come from elsewhere (another tab, the CLI, an order that filled later).
    if (run?.status === 'active' && run.next === 'buy') load().then(progress); else progress();
  });
  // A purchase happens in a sheet: when it closes, ask whether the buy step is done.
  dialog.addEventListener('close', async () => {
    if (run?.status !== 'active' || run.next !== 'buy') return;
    const before = run.next;
    await load();
    announce(before);
    progress();
  });
  // A new player signing in (not a token renewed): their own run.
  let user = currentSession()?.user.id ?? null;
  onSessionChange((session) => {
    if ((session?.user.id ?? null) === user) return;
    user = session?.user.id ?? null;
    epoch += 1;
    run = null;
    finishedNow = false;
    lastStock = null;
    load().then(progress);
  });
  load().then(progress);
}
