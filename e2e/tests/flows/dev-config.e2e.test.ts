/**
 * The environment of `npm start` (e2e/src/dev-config.ts). No environment is plain http on
 * 127.0.0.1:8080 as before; an https PUBLIC_BASE_URL serves TLS with the given certificate or one generated for
 * loopback; contradictions fail with the keys named. Pure parsing: nothing listens.
 */
import { ConfigError } from '@idp/config';
import { readDevConfig } from '../../src/dev-config';

const ROOT = '/repo';

it('no environment: plain http on 127.0.0.1:8080, public URL http://127.0.0.1:8080', () => {
  expect(readDevConfig({}, ROOT)).toEqual({
    publicBaseUrl: 'http://127.0.0.1:8080',
    listenPort: 8080,
    bindAddress: '127.0.0.1',
    tls: { kind: 'none' },
    logLevel: 'warn',
    topology: 'single',
  });
});

it('PUBLIC_PORT alone moves the port of the http default, as before', () => {
  expect(readDevConfig({ PUBLIC_PORT: '9090' }, ROOT)).toMatchObject({
    publicBaseUrl: 'http://127.0.0.1:9090',
    listenPort: 9090,
    tls: { kind: 'none' },
  });
});

it('an https PUBLIC_BASE_URL without a certificate: TLS with one generated for loopback (and the public host) under .tools/dev-tls', () => {
  expect(readDevConfig({ PUBLIC_BASE_URL: 'https://localhost:8443' }, ROOT)).toEqual({
    publicBaseUrl: 'https://localhost:8443',
    listenPort: 8443,
    bindAddress: '127.0.0.1',
    tls: { kind: 'generated', dir: '/repo/.tools/dev-tls', hosts: ['localhost', '127.0.0.1', '::1'] },
    logLevel: 'warn',
    topology: 'single',
  });
  expect(readDevConfig({ PUBLIC_BASE_URL: 'https://idp.test:9443/', TLS_DIR: '/tmp/x' }, ROOT)).toMatchObject({
    publicBaseUrl: 'https://idp.test:9443',
    tls: { kind: 'generated', dir: '/tmp/x', hosts: ['localhost', '127.0.0.1', '::1', 'idp.test'] },
  });
  expect(readDevConfig({ PUBLIC_BASE_URL: 'https://[::1]:8443' }, ROOT).tls).toEqual({
    kind: 'generated',
    dir: '/repo/.tools/dev-tls',
    hosts: ['localhost', '127.0.0.1', '::1'],
  });
});

it('the listening port is PUBLIC_PORT, else the port of the public URL, else its scheme default', () => {
  expect(readDevConfig({ PUBLIC_BASE_URL: 'https://localhost' }, ROOT).listenPort).toBe(443);
  expect(readDevConfig({ PUBLIC_BASE_URL: 'http://localhost' }, ROOT).listenPort).toBe(80);
  expect(readDevConfig({ PUBLIC_BASE_URL: 'https://localhost:8443', PUBLIC_PORT: '9443' }, ROOT).listenPort).toBe(9443);
});

it('a given certificate and key are served for an https public URL', () => {
  expect(
    readDevConfig(
      {
        PUBLIC_BASE_URL: 'https://idp.example.test',
        TLS_CERT_FILE: '/c.pem',
        TLS_KEY_FILE: '/k.pem',
        BIND_ADDRESS: '0.0.0.0',
      },
      ROOT,
    ),
  ).toMatchObject({
    listenPort: 443,
    bindAddress: '0.0.0.0',
    tls: { kind: 'given', certFile: '/c.pem', keyFile: '/k.pem' },
  });
});

it('ROUTER_TLS=off keeps an https public URL behind a TLS-terminating tunnel: the router serves http', () => {
  expect(
    readDevConfig({ PUBLIC_BASE_URL: 'https://abc.tunnel.example', PUBLIC_PORT: '8080', ROUTER_TLS: 'off' }, ROOT),
  ).toMatchObject({
    publicBaseUrl: 'https://abc.tunnel.example',
    listenPort: 8080,
    tls: { kind: 'none' },
  });
});

it.each([
  [{ PUBLIC_BASE_URL: 'https://localhost:8443/idp' }, 'PUBLIC_BASE_URL'],
  [{ PUBLIC_BASE_URL: 'https://localhost:8443?x=1' }, 'PUBLIC_BASE_URL'],
  [{ PUBLIC_BASE_URL: 'ftp://localhost' }, 'PUBLIC_BASE_URL'],
  [{ PUBLIC_BASE_URL: 'https://user:pw@localhost' }, 'PUBLIC_BASE_URL'],
  [{ PUBLIC_PORT: '70000' }, 'PUBLIC_PORT'],
  [{ ROUTER_TLS: 'on' }, 'ROUTER_TLS'],
  [{ PUBLIC_BASE_URL: 'https://localhost:8443', TLS_CERT_FILE: '/c.pem' }, 'TLS_CERT_FILE and TLS_KEY_FILE'],
  [{ PUBLIC_BASE_URL: 'https://localhost:8443', TLS_KEY_FILE: '/k.pem' }, 'TLS_CERT_FILE and TLS_KEY_FILE'],
  [
    { TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' },
    'TLS_CERT_FILE: the router serves TLS only for an https PUBLIC_BASE_URL',
  ],
  [
    { PUBLIC_BASE_URL: 'https://localhost:8443', ROUTER_TLS: 'off', TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' },
    'ROUTER_TLS=off',
  ],
])('%j is refused, naming %s', (env, key) => {
  expect(() => readDevConfig(env, ROOT)).toThrow(ConfigError);
  expect(() => readDevConfig(env, ROOT)).toThrow(key);
});

it('IDP_TOPOLOGY=ha selects the HA topology (plain http only); anything else is refused', () => {
  expect(readDevConfig({ IDP_TOPOLOGY: 'ha' }, ROOT).topology).toBe('ha');
  expect(() => readDevConfig({ IDP_TOPOLOGY: 'cluster' }, ROOT)).toThrow(/IDP_TOPOLOGY/);
  expect(() => readDevConfig({ IDP_TOPOLOGY: 'ha', PUBLIC_BASE_URL: 'https://localhost:8443' }, ROOT)).toThrow(
    /IDP_TOPOLOGY=ha/,
  );
});
