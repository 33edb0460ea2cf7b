// Learn (#/learn): short lessons in plain words, each with a quiz and something to try in Bullpen.
// #/learn lists them with the player's progress (lessons read, quizzes passed); #/learn/<id> shows
// one, rendered on the server from its Markdown, its terms, its quiz (answers checked and explained
// by the server, retakes allowed) and its "try it" button (a company's page, an option chain, a
// limit order ready, the public leagues, or a replay of a scenario, created here); #/learn/glossary
// lists every term with the lesson that explains it.
import { html, render, unsafeHTML } from '/html.js';
import { api, ApiError, errorMessage } from '/api.js';
import { view } from '/router.js';
import { rememberPortfolio, selectPortfolio } from '/portfolios.js';
import { formatNumber } from '/format.js';

const loading = html`<p class="loading">Loading…</p>`;

export default async function learnScreen({ params: [id], live }) {
  if (id === 'glossary') return glossaryScreen(live);
  if (id) return lessonScreen(id, live);
  view(html`<h1>Learn</h1>${loading}`);
  const list = await api('/api/v1/learn/lessons');
  if (!live()) return;
  view(html`<h1>Learn</h1>
    <p class="muted">Short lessons in plain words, 3 to 5 minutes each. Every lesson ends with a quiz and something to try in Bullpen.</p>
    <div class="card" id="learn-progress">
      <label for="learn-meter">Quizzes passed</label>
      <progress id="learn-meter" max="${list.total}" value="${list.passed}">${list.passed} of ${list.total}</progress>
      <p class="small flush" id="learn-summary">${formatNumber(list.read)} of ${formatNumber(list.total)} lessons read · ${formatNumber(list.passed)} ${list.passed === 1 ? 'quiz' : 'quizzes'} passed</p>
    </div>
    <ol class="list lessons gap-top" id="lessons">${list.lessons.map((lesson) => html`<li data-lesson="${lesson.id}">
      <span><a href="#/learn/${lesson.id}"><strong>${lesson.title}</strong></a> <span class="small muted">· ${lesson.minutes} min</span></span>
      <span class="small">${lesson.quiz.passed ? html`<span class="badge league-active">Quiz passed</span>`
        : lesson.read ? html`<span class="badge plain-badge">Read</span>` : ''}</span></li>`)}</ol>
    <p class="gap-top"><a href="#/learn/glossary">The glossary</a> · <a href="#/help">How Bullpen works</a></p>`);
}

async function glossaryScreen(live) {
  view(html`<h1>Glossary</h1>${loading}`);
  const glossary = await api('/api/v1/learn/glossary', { auth: false });
  if (!live()) return;
  view(html`<p class="small"><a href="#/learn">← All lessons</a></p><h1>Glossary</h1>
    <dl class="glossary" id="glossary">${glossary.terms.map((t) => html`<div data-term="${t.term}"><dt>${t.term}</dt>
      <dd>${t.definition} <a class="small" href="#/learn/${t.lesson}">${t.lessonTitle}</a></dd></div>`)}</dl>`);
}

async function lessonScreen(id, live) {
  view(html`<h1>Learn</h1>${loading}`);
  const lesson = await api(`/api/v1/learn/lessons/${encodeURIComponent(id)}`);
  if (!live()) return;
  const passedNote = (progress) => progress.passed
    ? `You passed this quiz (best: ${progress.bestCorrect} of ${progress.questions}). You can take it again.`
    : progress.attempts ? `Best so far: ${progress.bestCorrect} of ${progress.questions}. Three in four right passes.` : 'Three in four right passes. Take it as often as you like.';
  view(html`<p class="small"><a href="#/learn">← All lessons</a></p>
    <h1>${lesson.title}</h1>
    <p class="muted small">${lesson.minutes} minutes of reading</p>
    <article class="lesson card" id="lesson-text">${unsafeHTML(lesson.html)}</article>
    ${lesson.terms.length ? html`<h2>Words to know</h2><dl class="glossary" id="lesson-terms">${lesson.terms.map((t) => html`<div><dt>${t.term}</dt><dd>${t.definition}</dd></div>`)}</dl>` : ''}
    <section class="card gap-top" id="quiz" aria-labelledby="quiz-title">
      <h2 class="flush-top" id="quiz-title">Quiz</h2>
      <p class="small muted" id="quiz-note">${passedNote(lesson.progress)}</p>
      <form id="quiz-form" novalidate>
        ${lesson.quiz.map((q, i) => html`<fieldset class="question" data-question="${i}"><legend>${i + 1}. ${q.prompt}</legend>
          ${q.choices.map((choice, j) => html`<label class="check"><input type="radio" name="q${i}" value="${j}" id="q${i}-${j}"> ${choice}</label>`)}
          <p class="small explanation" data-explanation="${i}" hidden></p></fieldset>`)}
        <div class="row gap-top"><button type="submit" class="primary" id="check-quiz">Check my answers</button>
          <button type="button" id="retake-quiz" hidden>Take it again</button></div>
      </form>
      <p id="quiz-result" role="status" tabindex="-1"></p>
      <p class="error" id="quiz-error" role="alert"></p>
    </section>
    ${lesson.tryIt ? html`<section class="card gap-top" id="try-it" aria-labelledby="try-title">
      <h2 class="flush-top" id="try-title">Try it</h2>
      <p class="small muted">Put the lesson to work in Bullpen${lesson.tryIt.replay ? ': this starts a replay portfolio of its own, with its own cash.' : '.'}</p>
      <button type="button" class="primary" id="try-it-button">${lesson.tryIt.label}</button>
      <p class="small" id="try-status" role="status"></p><p class="error" id="try-error" role="alert"></p></section>` : ''}
    <div class="spread gap-top" id="lesson-nav">
      ${lesson.previous ? html`<a href="#/learn/${lesson.previous}" id="previous-lesson">← Previous lesson</a>` : html`<span></span>`}
      ${lesson.next ? html`<a href="#/learn/${lesson.next}" id="next-lesson">Next lesson →</a>` : html`<a href="#/learn">All lessons</a>`}</div>`);

  const form = document.getElementById('quiz-form');
  const result = document.getElementById('quiz-result');
  const error = document.getElementById('quiz-error');
  const retake = document.getElementById('retake-quiz');
  const check = document.getElementById('check-quiz');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const answers = lesson.quiz.map((_, i) => {
      const chosen = form.querySelector(`input[name="q${i}"]:checked`);
      return chosen ? Number.parseInt(chosen.value, 10) : null;
    });
    const blank = answers.indexOf(null);
    if (blank >= 0) {
      error.textContent = `Choose an answer for question ${blank + 1} first.`;
      document.getElementById(`q${blank}-0`).focus();
      return;
    }
    check.disabled = true;
    try {
      const graded = await api(`/api/v1/learn/lessons/${encodeURIComponent(lesson.id)}/quiz`, { method: 'POST', body: { answers } });
      if (!live()) return;
      graded.answers.forEach((answer, i) => {
        const fieldset = form.querySelector(`[data-question="${i}"]`);
        fieldset.dataset.outcome = answer.right ? 'right' : 'wrong';
        const right = lesson.quiz[i].choices[answer.correct];
        render(fieldset.querySelector('[data-explanation]'), answer.right
          ? html`<strong>Right.</strong> ${answer.explanation}`
          : html`<strong>Not quite: the answer is “${right}”.</strong> ${answer.explanation}`);
        fieldset.querySelector('[data-explanation]').hidden = false;
        fieldset.querySelectorAll('input').forEach((input) => { input.disabled = true; });
      });
      result.textContent = `${graded.correct} of ${graded.total} right: ${graded.passed ? 'passed!' : `not passed yet (${graded.passPercent} % passes).`}`;
      result.className = graded.passed ? 'up' : '';
      document.getElementById('quiz-note').textContent = passedNote(graded.progress);
      check.hidden = true;
      retake.hidden = false;
      result.focus();
    } catch (problem) {
      if (live()) { error.textContent = errorMessage(problem); check.disabled = false; }
    }
  });
  retake.addEventListener('click', () => {
    form.reset();
    form.querySelectorAll('fieldset').forEach((fieldset) => {
      delete fieldset.dataset.outcome;
      fieldset.querySelector('[data-explanation]').hidden = true;
      fieldset.querySelectorAll('input').forEach((input) => { input.disabled = false; });
    });
    result.textContent = '';
    retake.hidden = true;
    check.hidden = false;
    check.disabled = false;
    document.getElementById('q0-0').focus();
  });
  const tryButton = document.getElementById('try-it-button');
  tryButton?.addEventListener('click', () => tryIt(lesson.tryIt, tryButton, live));
}

/** Does what a lesson's "try it" says: opens a screen, or starts a replay and opens it. */
async function tryIt(action, button, live) {
  const error = document.getElementById('try-error');
  error.textContent = '';
  if (action.link) { location.hash = action.link; return; }
  if (!action.replay) {
    error.textContent = action.action.startsWith('start-scenario:')
      ? 'This market data cannot play that moment of history: try it with the real data pack.'
      : 'There is no company to open with this market data right now.';
    return;
  }
  button.disabled = true;
  document.getElementById('try-status').textContent = 'Starting the replay…';
  try {
    // A name of its own: the scenario's, then numbered if a profile already has it.
    let portfolio = null;
    for (let n = 1; n <= 20 && !portfolio; n += 1) {
      const name = n === 1 ? action.name : `${action.name} (${n})`;
      try {
        portfolio = await api('/api/v1/portfolios', { method: 'POST', body: { name, replay: action.replay } });
      } catch (problem) {
        if (!(problem instanceof ApiError) || problem.code !== 'portfolio_name_taken') throw problem;
      }
    }
    if (!portfolio) throw new Error('Every name for this replay is taken: delete an old profile in Replay.');
    rememberPortfolio(portfolio);
    selectPortfolio(portfolio.id);
    location.hash = '#/portfolio';
  } catch (problem) {
    if (live()) { error.textContent = errorMessage(problem); button.disabled = false; document.getElementById('try-status').textContent = ''; }
  }
}
