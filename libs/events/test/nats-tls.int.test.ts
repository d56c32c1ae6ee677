/**
 * A `tls://` NATS_URL requires TLS. nats.js 3 alone does not: given tls://host it connected in plain text to a server
 * that offers no TLS and sent the NATS password with its CONNECT, so anything that could answer in the server's
 * place (a spoofed Service, a rogue pod on the port) collected it. natsConnectionOptions now asks for TLS.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { testNats } from '@idp/testing';
import { natsConnectionOptions } from '../src/jetstream';

let nats: Awaited<ReturnType<typeof testNats>>;
beforeAll(async () => {
  nats = await testNats();
});
afterAll(async () => {
  await nats.server?.stop();
});

const hostPort = () => new URL(nats.url.split(',')[0]!.replace(/^nats:/, 'http:')).host;

it('asks for TLS for a tls:// server anywhere in the list, not for nats:// alone', () => {
  expect(natsConnectionOptions('tls://idp:s3cret@a:4222')).toEqual({
    servers: ['tls://a:4222'],
    user: 'idp',
    pass: 's3cret',
    tls: {},
  });
  expect(natsConnectionOptions('nats://a:4222,tls://b:4222').tls).toEqual({});
  expect(natsConnectionOptions('nats://idp:s3cret@a:4222')).toEqual({
    servers: ['nats://a:4222'],
    user: 'idp',
    pass: 's3cret',
  });
});

it('refuses a real nats-server without TLS behind a tls:// URL (a nats:// URL to it connects)', async () => {
  const plain = await connect({ ...natsConnectionOptions(`nats://${hostPort()}`), reconnect: false });
  await plain.close();
  await expect(
    connect({ ...natsConnectionOptions(`tls://${hostPort()}`), reconnect: false, timeout: 3000 }),
  ).rejects.toThrow(/tls/i);
});

it('never sends the password to an impostor that answers a tls:// URL without TLS', async () => {
  const received: Buffer[] = [];
  const sockets: Socket[] = [];
  const impostor: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', () => undefined);
    socket.write(
      'INFO {"server_id":"impostor","version":"2.10.0","proto":1,"host":"127.0.0.1","port":4222,"max_payload":1048576}\r\n',
    );
  });
  await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
  const { port } = impostor.address() as { port: number };
  try {
    await expect(
      connect({
        ...natsConnectionOptions(`tls://idp:s3cret-password@127.0.0.1:${port}`),
        reconnect: false,
        timeout: 3000,
      }),
    ).rejects.toThrow();
    expect(Buffer.concat(received).toString()).not.toContain('s3cret-password');
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => impostor.close(r));
  }
});
