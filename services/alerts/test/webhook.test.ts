import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookBlockedError, isPublicAddress, postWebhook } from '../src/webhook';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('postWebhook', () => {
  let receiver: http.Server;
  const received: Array<{ url: string; body: string }> = [];
  let url: string;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body });
        if (req.url === '/redirect') {
          res.writeHead(307, { location: '/hook' });
          res.end();
        } else res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => receiver.close(resolve)));
  beforeEach(() => (received.length = 0));

  it('refuses a loopback address and a name that resolves to one, and sends nothing', async () => {
    const port = (receiver.address() as AddressInfo).port;
    for (const target of [`${url}/hook`, `http://localhost:${port}/hook`, `http://[::1]:${port}/hook`]) {
      const sent = postWebhook(target, '{}', { timeoutMs: 2_000, allowPrivateNetworks: false });
      await expect(sent).rejects.toBeInstanceOf(WebhookBlockedError);
    }
    expect(received).toEqual([]);
  });

  it('posts the JSON body when private networks are allowed and answers with the status', async () => {
    const answer = await postWebhook(`${url}/hook`, '{"a":1}', { timeoutMs: 2_000, allowPrivateNetworks: true });
    expect(answer).toEqual({ status: 200, body: 'ok' });
    expect(received).toEqual([{ url: '/hook', body: '{"a":1}' }]);
  });

  it('does not follow a redirect', async () => {
    const answer = await postWebhook(`${url}/redirect`, '{}', { timeoutMs: 2_000, allowPrivateNetworks: true });
    expect(answer.status).toBe(307);
    expect(received.map((request) => request.url)).toEqual(['/redirect']);
  });
});
