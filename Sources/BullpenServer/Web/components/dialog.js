// The one modal dialog (index.html's <dialog id="dialog">): a screen or a sheet puts a template in
// it; every element marked data-close closes it. confirmDialog asks before a step.
import { html, render } from '/html.js';
import { errorMessage } from '/api.js';
import { toast } from '/components/toast.js';

const dialog = document.getElementById('dialog');

/**
 * Shows `template` in the dialog, opening it if it is closed (a sheet's next step reuses it).
 * `wide`: room for charts and tables (a contract's sheet), still the screen's width on a phone.
 */
export function openDialog(template, { wide = false } = {}) {
  dialog.classList.toggle('wide', wide);
  render(dialog, template);
  if (!dialog.open) dialog.showModal();
  for (const button of dialog.querySelectorAll('[data-close]')) button.addEventListener('click', () => dialog.close());
}

export function closeDialog() { if (dialog.open) dialog.close(); }

/** Whether `node` is still in the open dialog (a step replaced since then has gone). */
export function isShowing(node) { return dialog.open && dialog.contains(node); }

/**
 * Asks before a step: `title`, then `body` (words, and any fields `run` reads), then the confirm
 * button (`danger` red, else primary) and Cancel. Confirming (a click, or Enter in a field) disables
 * the button and calls `run()`: once it is done the dialog closes and the words it answers, if
 * any, show in a toast; a refusal shows in the dialog, in the server's words, and the button
 * works again.
 */
export function confirmDialog({ title, body, confirmLabel, danger = true, run, cancelLabel = 'Cancel' }) {
  openDialog(html`<h2 id="dialog-title">${title}</h2>
    <form id="confirm-form" novalidate>${body}
      <p class="error" id="confirm-error" role="alert"></p>
      <div class="actions"><button type="submit" class="${danger ? 'danger' : 'primary'}" id="confirm-step">${confirmLabel}</button>
        <button type="button" data-close id="cancel-step">${cancelLabel}</button></div>
    </form>`);
  const confirm = document.getElementById('confirm-step');
  document.getElementById('confirm-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    confirm.disabled = true;
    try {
      const words = await run();
      closeDialog();
      if (words) toast(words);
    } catch (error) {
      document.getElementById('confirm-error').textContent = errorMessage(error);
      confirm.disabled = false;
    }
  });
}
