/** Deterministic synthetic telemetry: the same items for the HTTP run and the appender ceiling. */
const SEVERITIES = ['debug', 'info', 'info', 'info', 'warn', 'error', 'fatal'] as const;
const ROUTES = ['/', '/checkout', '/cart', '/search', '/account', '/api/orders', '/api/payments', '/login'];
const MESSAGES = [
  'request completed',
  'payment failed for order',
  'cache miss for key',
  'user signed in',
  'retrying upstream call',
  'slow query detected',
  'session expired',
  'inventory updated',
];
const EVENTS = ['pageview', 'signup', 'checkout_started', 'checkout_completed', 'search', 'add_to_cart'];

export function logItem(i: number) {
  return {
    severity: SEVERITIES[i % SEVERITIES.length],
    message: `${MESSAGES[i % MESSAGES.length]} ${i}`,
    properties: {
      route: ROUTES[i % ROUTES.length],
      user_id: `u${i % 5_000}`,
      duration_ms: (i * 7) % 1_500,
      plan: i % 3 === 0 ? 'pro' : 'free',
      region: i % 2 === 0 ? 'eu' : 'us',
    },
  };
}

export function eventItem(i: number) {
  return {
    event: EVENTS[i % EVENTS.length],
    distinctId: `u${i % 5_000}`,
    properties: { route: ROUTES[i % ROUTES.length], plan: i % 3 === 0 ? 'pro' : 'free', value: i % 100 },
  };
}
