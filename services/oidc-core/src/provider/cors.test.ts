import { corsOriginAllowed } from './cors';

const spa = {
  redirectUris: ['https://app.example.com/callback', 'http://127.0.0.1:6274/oauth/callback'],
  postLogoutRedirectUris: ['https://www.example.com/bye'],
};

it('allows the origins of the client redirect and post-logout redirect URIs', () => {
  expect(corsOriginAllowed('https://app.example.com', spa)).toBe(true);
  expect(corsOriginAllowed('http://127.0.0.1:6274', spa)).toBe(true);
  expect(corsOriginAllowed('https://www.example.com', spa)).toBe(true);
});

it('refuses any other origin, an opaque origin, and every origin for a client without web redirect URIs', () => {
  expect(corsOriginAllowed('https://evil.example', spa)).toBe(false);
  expect(corsOriginAllowed('https://app.example.com:8443', spa)).toBe(false);
  expect(corsOriginAllowed('http://app.example.com', spa)).toBe(false);
  expect(corsOriginAllowed('null', spa)).toBe(false);
  expect(corsOriginAllowed('com.example.app:', { redirectUris: ['com.example.app:/callback'] })).toBe(false);
  expect(corsOriginAllowed('https://app.example.com', {})).toBe(false);
});
