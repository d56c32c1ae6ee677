import type { LookupAddress } from 'node:dns';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { addressProblem, checkOutboundUrl, guardedLookup, OutboundUrlError, outboundRequest } from './outbound';

describe('addressProblem', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    'fd00::1',
    '169.254.169.254',
    'fe80::1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
  ])('refuses %s by default', (ip) => {
    expect(addressProblem(ip)).toEqual(expect.any(String));
  });

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '11.0.0.1'])(
    'allows the public address %s',
    (ip) => {
      expect(addressProblem(ip)).toBeUndefined();
    },
  );

  it('allows loopback only with allowLoopback, private networks only with allowPrivateNetworks, metadata never', () => {
    expect(addressProblem('127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(addressProblem('::ffff:127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(addressProblem('10.1.2.3', { allowLoopback: true })).toMatch(/private/);
    expect(addressProblem('10.1.2.3', { allowPrivateNetworks: true })).toBeUndefined();
    expect(addressProblem('127.0.0.1', { allowPrivateNetworks: true })).toMatch(/loopback/);
    expect(addressProblem('169.254.169.254', { allowLoopback: true, allowPrivateNetworks: true })).toMatch(
      /link-local/,
    );
  });
});

describe('checkOutboundUrl', () => {
  it('accepts a public https URL', () => {
    expect(checkOutboundUrl('https://rx.example.com/events').href).toBe('https://rx.example.com/events');
  });

  it.each([
    ['http://rx.example.com/events', /https/],
    ['ftp://rx.example.com/', /https/],
    ['https://user:pw@rx.example.com/', /user info/],
    ['https://rx.example.com/#x', /fragment/],
    ['https://127.0.0.1/', /loopback/],
    ['https://[::1]/', /loopback/],
    ['https://localhost/', /loopback/],
    ['https://10.0.0.5/', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['http://127.0.0.1:8080/', /https/],
    ['not a url', /absolute/],
  ])('refuses %s', (url, message) => {
    expect(() => checkOutboundUrl(url)).toThrow(OutboundUrlError);
    expect(() => checkOutboundUrl(url)).toThrow(message);
  });

  it.each([
    'https://localhost.:8443/rx',
    'https://LOCALHOST./rx',
    'https://rx.localhost./',
    'https://localhost../rx',
    'https://127.0.0.1.:8443/rx',
  ])('refuses %s: a fully qualified loopback name (trailing dot) is the same loopback host', (url) => {
    expect(() => checkOutboundUrl(url)).toThrow(/loopback/);
    expect(() => checkOutboundUrl(url.replace('https:', 'http:'), { allowLoopback: false })).toThrow(OutboundUrlError);
  });

  it('treats a trailing-dot loopback name as loopback where loopback is allowed (http included)', () => {
    expect(checkOutboundUrl('http://localhost.:8080/rx', { allowLoopback: true }).hostname).toBe('localhost.');
  });

  it('allows http only to a loopback host, and only with allowLoopback', () => {
    expect(checkOutboundUrl('http://127.0.0.1:8080/rx', { allowLoopback: true }).port).toBe('8080');
    expect(checkOutboundUrl('http://localhost:8080/rx', { allowLoopback: true }).hostname).toBe('localhost');
    expect(() => checkOutboundUrl('http://rx.example.com/', { allowLoopback: true })).toThrow(/https/);
    expect(() => checkOutboundUrl('http://10.0.0.1/', { allowLoopback: true, allowPrivateNetworks: true })).toThrow(
      /https/,
    );
  });
});

describe('guardedLookup', () => {
  const fakeResolver = (addresses: LookupAddress[]) =>
    ((_host: string, _opts: unknown, cb: (err: Error | null, a: LookupAddress[]) => void) =>
      cb(null, addresses)) as never;
  const run = (addresses: LookupAddress[], policy = {}, all = false) =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      guardedLookup(policy, fakeResolver(addresses))(
        'rx.example.com',
        { all } as never,
        (err: Error | null, address: unknown) => resolve({ err, address }),
      ),
    );

  it('passes a name whose every address is public', async () => {
    expect(await run([{ address: '93.184.216.34', family: 4 }])).toEqual({ err: null, address: '93.184.216.34' });
    expect((await run([{ address: '93.184.216.34', family: 4 }], {}, true)).address).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('refuses a name with any refused address (DNS pointing at the metadata service or a private network)', async () => {
    const metadata = await run([
      { address: '93.184.216.34', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]);
    expect(metadata.err).toBeInstanceOf(OutboundUrlError);
    const internal = await run([{ address: '10.0.0.7', family: 4 }]);
    expect(internal.err?.message).toMatch(/private/);
    expect((await run([{ address: '10.0.0.7', family: 4 }], { allowPrivateNetworks: true })).err).toBeNull();
  });

  it('outboundRequest connects only after the check: a public-looking name that resolves to loopback is refused', async () => {
    const resolve = fakeResolver([{ address: '127.0.0.1', family: 4 }]);
    await expect(outboundRequest('https://rebind.example.com/', { resolve, timeoutMs: 2000 })).rejects.toThrow(
      /refused address/,
    );
  });
});

describe('outboundRequest deadlines', () => {
  it('gives up on a host that accepts the connection and never answers: at the connect deadline when the TLS handshake never completes, at the total deadline otherwise', async () => {
    // A tarpit: accepts every connection, never writes a byte.
    const sockets = new Set<Socket>();
    const tarpit = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((r) => tarpit.listen(0, '127.0.0.1', r));
    const port = (tarpit.address() as AddressInfo).port;
    try {
      let started = performance.now();
      await expect(
        outboundRequest(`https://127.0.0.1:${port}/`, {
          policy: { allowLoopback: true },
          timeoutMs: 5000,
          connectTimeoutMs: 300,
        }),
      ).rejects.toThrow(/not established within 300 ms/);
      expect(performance.now() - started).toBeLessThan(2000);
      // Plain http: the TCP connection is made at once, so the total deadline is what ends the wait.
      started = performance.now();
      await expect(
        outboundRequest(`http://127.0.0.1:${port}/`, {
          policy: { allowLoopback: true },
          timeoutMs: 600,
          connectTimeoutMs: 300,
        }),
      ).rejects.toThrow(/timed out after 600 ms/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(550);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => tarpit.close(r));
    }
  });
});
