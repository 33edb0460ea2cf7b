// The one modal dialog (index.html's <dialog id="dialog">): a screen or a sheet puts a template in
// it; every element marked data-close closes it.
import { render } from '/html.js';

const dialog = document.getElementById('dialog');

/** Shows `template` in the dialog, opening it if it is closed (a sheet's next step reuses it). */
export function openDialog(template) {
  render(dialog, template);
  if (!dialog.open) dialog.showModal();
  for (const button of dialog.querySelectorAll('[data-close]')) button.addEventListener('click', () => dialog.close());
}

export function closeDialog() { if (dialog.open) dialog.close(); }

/** Whether `node` is still in the open dialog (a step replaced since then has gone). */
export function isShowing(node) { return dialog.open && dialog.contains(node); }
