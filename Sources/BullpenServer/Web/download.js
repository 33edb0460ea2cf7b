// Files the server writes (CSV): fetched with the player's token, then saved under a name.
import { api, errorMessage } from '/api.js';
import { toast } from '/components/toast.js';

/** Downloads the answer of GET `path` as a file called `filename`; a failure is told in a toast. */
export async function download(path, filename) {
  let blob;
  try {
    blob = await (await api(path, { raw: true })).blob();
  } catch (error) {
    toast(errorMessage(error));
    return;
  }
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}
