// @ts-check
/**
 * The ceiling of bench/token-exchange: an express app that parses the same form body, signs an ES256 JWT with the
 * same claims as an NHE token (jose) and responds with the same JSON — no client authentication, no database, no
 * audit. Prints its port on stdout.
 */
const { randomUUID } = require('node:crypto');
const express = require('express');
const { run, serve } = require('../reference-server');
const { generateKeyPair, SignJWT } = require('jose');

async function main() {
  const { privateKey } = await generateKeyPair('ES256');
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.post('/token', async (req, res) => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({
      scope: String(req.body.scope ?? ''),
      gty: 'urn:ietf:params:oauth:grant-type:token-exchange',
      azp: 1,
      'org.vendor.tenant.name': 'bench',
      'org.vendor.tenant.id': 4243,
      act: { sub: `nhe:${String(req.body.actor_token ?? '')}` },
      agent: { id: String(req.body.actor_token ?? ''), type: 'llm-assistive', operator: 'Demo Operations' },
      'org.vendor.nhe.delegation': true,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k', typ: 'at+jwt' })
      .setIssuer('http://127.0.0.1/auth/4243')
      .setSubject('user')
      .setAudience(String(req.body.resource ?? ''))
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setJti(randomUUID())
      .sign(privateKey);
    res.set('Cache-Control', 'no-store');
    res.json({
      access_token: jwt,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: 300,
    });
  });
  serve(app);
}

run(main);
