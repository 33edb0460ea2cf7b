// A list the API pages with a cursor, drawn page after page under a "Show more" button (a league's
// standings, the public leagues, a member's trades). The pager keeps the cursor and the lines so
// far, and only the answer to the latest request is drawn: a reload (a new search, another
// measure) wins over a page still on its way.
import { html, render } from '/html.js';
import { errorMessage } from '/api.js';

/** The "Show more" button (hidden until there is more), with the line that says why more did not come. */
export function moreButton(id) {
  return html`<div class="spread gap-top"><p class="error" id="${id}-error" role="alert"></p>
    <button type="button" class="push-end" id="${id}" hidden>Show more</button></div>`;
}

/**
 * Wires moreButton(`moreId`) and loads the first page. `page(cursor)`: the API's answer for a
 * page (cursor null for the first); `key`: the answer's list ("standings"); `draw(lines, answer)`
 * draws every line so far; `node`: where the list goes (a first page that fails says why there),
 * busy while a page loads; `live()`: the screen's. Returns `reload()`, which starts from the first page.
 */
export function setupPager({ moreId, node, key, page, draw, live }) {
  const more = document.getElementById(moreId);
  const problem = document.getElementById(`${moreId}-error`);
  let lines = [], cursor = null, seq = 0;
  const load = async (append) => {
    const mine = ++seq;
    const current = () => live() && mine === seq;
    more.disabled = true;
    problem.textContent = '';
    node.setAttribute('aria-busy', 'true');
    try {
      const answer = await page(append ? cursor : null);
      if (!current()) return;
      lines = append ? lines.concat(answer[key]) : answer[key];
      cursor = answer.nextCursor;
      draw(lines, answer);
      more.hidden = !cursor;
    } catch (error) {
      if (!current()) return;
      // A later page that fails keeps the lines shown; a first one says why in their place.
      if (append) problem.textContent = errorMessage(error);
      else { render(node, html`<p class="error">${errorMessage(error)}</p>`); more.hidden = true; }
    } finally {
      if (current()) { more.disabled = false; node.removeAttribute('aria-busy'); }
    }
  };
  more.addEventListener('click', () => load(true));
  load(false);
  return () => load(false);
}
