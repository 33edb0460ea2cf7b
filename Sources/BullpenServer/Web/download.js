// Files the server writes (CSV): fetched with the player's token, then saved under a name.
import { api } from '/api.js';

/** Downloads the answer of GET `path` as a file called `filename`. */
export async function download(path, filename) {
  const response = await api(path, { raw: true });
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}
