/**
 * The user's agents page (oidc-core's delegation ledger, /auth/{t}/account/agents) used as a browser would, from a
 * terminal:
 *
 *   node e2e/dist/demo/agents-ledger.js LEDGER_URL --user NAME --password PASSWORD [--revoke NHE_IDENTIFIER]
 *
 * Opens the page, signs in on the tenant's login page it sends the browser to (cookies kept, forms posted as they
 * are), prints what the page shows: each agent, why it may act for the user, its tokens; with `--revoke`, presses
 * that agent's "Revoke its access now" button (the page's own form with its CSRF token) and prints the page after.
 */
import { parseArgs } from 'node:util';
import { FormAgent, parseForms } from '../clients/form-agent';

const USAGE = 'usage: agents-ledger.js LEDGER_URL --user NAME --password PASSWORD [--revoke NHE_IDENTIFIER]';

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The page's agent sections: identifier, description, why it may act, its tokens, and the section's HTML. */
function agentsOf(html: string) {
  return [...html.matchAll(/<section\b[^>]*\bdata-nhe="([^"]*)"[^>]*>([\s\S]*?)<\/section>/g)].map((m) => {
    const body = m[2]!;
    const list = (label: RegExp) => {
      const ul = [...body.matchAll(/<ul aria-label="([^"]*)">([\s\S]*?)<\/ul>/g)].find((u) => label.test(u[1]!));
      return ul ? [...ul[2]!.matchAll(/<li\b[^>]*>([\s\S]*?)<\/li>/g)].map((li) => text(li[1]!)) : [];
    };
    return {
      identifier: text(m[1]!),
      about: text(/<p class="muted">([\s\S]*?)<\/p>/.exec(body)?.[1] ?? ''),
      why: list(/^Why /),
      tokens: list(/^Tokens of /),
      revoked: list(/^Revoked tokens of /),
      html: body,
    };
  });
}

function show(html: string): void {
  const status = /<p role="status"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  if (status) console.log(`\n  ${text(status[1]!)}\n`);
  const agents = agentsOf(html);
  if (!agents.length) console.log('  No agent acts or may act for you.');
  for (const a of agents) {
    console.log(`Agent ${a.identifier}: ${a.about}`);
    for (const w of a.why) console.log(`  why:   ${w}`);
    if (!a.tokens.length) console.log('  token: none live');
    for (const t of a.tokens) console.log(`  token: ${t}`);
    for (const t of a.revoked) console.log(`  token: ${t}`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { user: { type: 'string' }, password: { type: 'string' }, revoke: { type: 'string' } },
  });
  const ledgerUrl = positionals[0];
  if (!ledgerUrl || positionals.length > 1 || !values.user || !values.password) throw new Error(USAGE);
  const browser = new FormAgent();
  // The page sends a browser without a session through the tenant's sign-in and back to itself.
  const signedIn = await browser.drive(ledgerUrl, { username: values.user, password: values.password }, ledgerUrl);
  if (!signedIn.url.startsWith(ledgerUrl))
    throw new Error(
      `the sign-in ended at ${signedIn.url} (${signedIn.status}): ${text(signedIn.html ?? '').slice(0, 300)}`,
    );
  const page = await browser.request(ledgerUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`${ledgerUrl}: ${page.status} ${text(html).slice(0, 300)}`);
  console.log(`Signed in as ${values.user}: ${ledgerUrl}\n`);
  show(html);
  if (!values.revoke) return;

  const agent = agentsOf(html).find((a) => a.identifier === values.revoke);
  if (!agent) throw new Error(`the page shows no agent ${values.revoke}`);
  const form = parseForms(agent.html, ledgerUrl).find((f) => f.action.endsWith('/revoke'));
  if (!form) throw new Error(`the page has no Revoke button for ${values.revoke}`);
  console.log(`\nPressing "${form.text}" for ${values.revoke} (POST ${form.action})`);
  const answer = await browser.submit(form);
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location)
    throw new Error(`the revocation was not accepted: ${answer.status} ${text(await answer.text()).slice(0, 300)}`);
  const after = await browser.request(new URL(location, ledgerUrl).href);
  show(await after.text());
}

main().catch((err: unknown) => {
  console.error(`agents-ledger: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
