// Words said to screen readers without moving the focus: a visually hidden live region (role
// status). Saying empties it, then sets the words a moment later, so that the same words said
// twice are read twice. `host` is where the region must be to be heard: inside an open modal
// dialog, which makes the rest of the page inert, or the page itself.
export function liveRegion(id) {
  const region = document.createElement('span');
  region.className = 'visually-hidden';
  region.id = id;
  region.setAttribute('role', 'status');
  document.body.append(region);
  return function say(words, host = document.body) {
    if (region.parentNode !== host) host.append(region);
    region.textContent = '';
    setTimeout(() => { region.textContent = words; }, 50);
  };
}
