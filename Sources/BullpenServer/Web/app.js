// Bullpen's web app: plain JavaScript modules on the REST API and the quote stream. This file only
// starts things; screens live in /screens/, shared pieces in /components/, routing in router.js.
import { currentSession, onSessionChange } from '/session.js';
import { startAppearance } from '/appearance.js';
import { startBanners } from '/components/banners.js';
import { refreshMarket } from '/market-status.js';
import { startRouter } from '/router.js';
import { loadPortfolios } from '/portfolios.js';
import { restoreSession } from '/api.js';
import { startNotifications } from '/notifications.js';
import { startFirstRunGuide } from '/components/first-run.js';

startAppearance();
startBanners();
onSessionChange((session) => {
  if (!session && location.hash !== '#/login' && location.hash !== '#/signup') location.hash = '#/login';
});
refreshMarket();
setInterval(refreshMarket, 60_000);
// Tokens live in memory: after a reload, the refresh cookie gets a new access token first.
await restoreSession();
// The banners show a selected replay's date on every screen, also on one that loads no portfolio.
if (currentSession()) loadPortfolios().catch(() => {});
startNotifications();
startFirstRunGuide();
startRouter();
