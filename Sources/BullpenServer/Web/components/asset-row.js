// Pieces that show a company: its logo, its change, the "Data ended" badge, and a row of a list.
import { html } from '/html.js';
import { formatDate, formatPercent, formatPrice, formatSignedMoney, tone } from '/format.js';

export function logo(asset, small = false) {
  const size = small ? 28 : 40;
  return html`<img class="${small ? 'logo small' : 'logo'}" src="${asset.logoUrl}" alt="" width="${size}" height="${size}" loading="lazy">`;
}

/** "+$1.20 (▲ +0.45%)" in a pill coloured by its sign (the sign and arrow say it too). */
export function changePill(change, percent) {
  return html`<span class="pill ${tone(change ?? percent)}">${change != null ? formatSignedMoney(change) + ' ' : ''}(${formatPercent(percent)})</span>`;
}

/** For a company whose prices have ended: "Data ended Nov 10, 2017" (the date when known). */
export function endedBadge(date) {
  return html`<span class="badge ended">Data ended${date ? ' ' + formatDate(date) : ''}</span>`;
}

/** An endedBadge when `item.trading` is false; `date` is the last price's date. */
export function endedBadgeFor(item, date) {
  return item?.trading === false ? endedBadge(date) : '';
}

/** A company in a list: logo, symbol and name linking to its page, price and change. */
export function assetRow(asset) {
  return html`<li><a href="#/stock/${asset.symbol}" class="row plain grow">${logo(asset, true)}
    <span><strong>${asset.symbol}</strong> <span class="muted small">${asset.name}</span> ${asset.assetClass === 'crypto' ? html`<span class="badge playing">Crypto</span>` : ''} ${endedBadgeFor(asset, asset.asOf)}</span></a>
    <span class="figure">${formatPrice(asset.price)}<span class="block small ${tone(asset.changePercent)}">${formatPercent(asset.changePercent)}</span></span></li>`;
}
