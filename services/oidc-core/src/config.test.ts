import { readConfig } from './config';

const env = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017/idp',
  NATS_URL: 'nats://127.0.0.1:4222',
  KEY_ENCRYPTION_KEY: 'k'.repeat(40),
  CLIENT_SECRET_PEPPER: 'p'.repeat(40),
  COOKIE_KEYS: 'c'.repeat(40),
  SIDECAR_SECRET: 's'.repeat(40),
};

// Every endpoint URL and DPoP htu is the configured origin plus the path the service is reached at (it routes
// from /), so a base URL with a path would give issuers that no endpoint URL shares.
it.each(['https://id.example.com', 'https://id.example.com/', 'http://127.0.0.1:8080'])(
  'PUBLIC_BASE_URL %s is an origin: accepted',
  (url) => {
    expect(readConfig({ ...env, PUBLIC_BASE_URL: url }).PUBLIC_BASE_URL).toBe(url.replace(/\/$/, ''));
  },
);

it.each([
  'https://id.example.com/idp',
  'https://id.example.com/?x=1',
  'https://id.example.com/#f',
  'https://user:pw@id.example.com',
  'ftp://id.example.com',
])('PUBLIC_BASE_URL %s is refused, naming the key', (url) => {
  expect(() => readConfig({ ...env, PUBLIC_BASE_URL: url })).toThrow(/PUBLIC_BASE_URL/);
});
