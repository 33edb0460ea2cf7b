// Browser notifications on this device (Web Push): the service worker /sw.js, the browser's
// subscription to its push service, handed to the server (which encrypts each message for it).
import { api } from '/api.js';

/** Whether this browser can receive pushes at all. */
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window && window.isSecureContext;
}

async function registration() {
  return navigator.serviceWorker.register('/sw.js');
}

/** This device's subscription, if it has one. */
export async function currentSubscription() {
  if (!pushSupported()) return null;
  return (await registration()).pushManager.getSubscription();
}

function keyBytes(base64url) {
  const text = atob(base64url.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Asks permission, subscribes with the server's key and registers the device. Throws with a reason. */
export async function subscribePush(publicKey) {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site: allow them in your browser’s site settings first.');
  const worker = await registration();
  await navigator.serviceWorker.ready;
  let subscription;
  try {
    subscription = await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
  } catch {
    throw new Error('This browser could not reach its push service. Try again later, or from another browser.');
  }
  return api('/api/v1/push/subscriptions', { method: 'POST', body: subscription.toJSON() });
}

/** Forgets this device, here and on the server. */
export async function unsubscribePush() {
  const subscription = await currentSubscription();
  if (!subscription) return null;
  const endpoint = subscription.endpoint;
  await subscription.unsubscribe();
  return api('/api/v1/push/unsubscribe', { method: 'POST', body: { endpoint } });
}
