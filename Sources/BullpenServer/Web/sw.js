// The service worker: shows the browser notifications the server pushes (Web Push) while the app
// is closed, and opens the app where a notification leads when it is clicked. Nothing is cached.
self.addEventListener('push', (event) => {
  let message = { title: 'Bullpen', body: '', link: '#/notifications' };
  try { message = { ...message, ...event.data.json() }; } catch { /* an empty or foreign push: the default text */ }
  event.waitUntil(self.registration.showNotification(message.title, {
    body: message.body, tag: message.id, data: { link: message.link || '#/notifications' },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL('/' + (event.notification.data?.link ?? '#/notifications'), self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const client of windows) {
      if (new URL(client.url).origin === self.location.origin) { await client.focus(); return client.navigate(target); }
    }
    return self.clients.openWindow(target);
  })());
});
