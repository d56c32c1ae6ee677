/**
 * A browser without a browser: follows redirects by hand, keeps cookies, reads the HTML forms of the sign-in,
 * consent and device pages and submits them the way a person would (hidden fields kept, the affirmative
 * button pressed). Lets certified client libraries run their flows in tests with the browser steps done by
 * HTTP form posts. Pages are parsed loosely on purpose: the test follows what the page offers.
 */
import { CookieJar } from './browserless-login';

export interface ParsedForm {
  action: string;
  method: string;
  fields: Record<string, string>;
  /** Names of visible (non-hidden) inputs, e.g. username, password, user_code. */
  visible: string[];
  /** The first submit button with a name, if any (its value is sent when "pressed"). */
  button?: { name: string; value: string };
  text: string;
}

const attr = (tag: string, name: string): string | undefined => {
  // One of the three alternatives matched: the other groups are undefined (the array's type does not say so).
  const m: Array<string | undefined> | null = new RegExp(
    `\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`,
    'i',
  ).exec(tag);
  return m ? decodeEntities(m[2] ?? m[3] ?? m[4] ?? '') : undefined;
};

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function parseForms(html: string, pageUrl: string): ParsedForm[] {
  const forms: ParsedForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const open = m[1];
    const body = m[2];
    const fields: Record<string, string> = {};
    const visible: string[] = [];
    for (const input of body.matchAll(/<input\b[^>]*>/gi)) {
      const name = attr(input[0], 'name');
      if (!name) continue;
      const type = (attr(input[0], 'type') ?? 'text').toLowerCase();
      if (type === 'submit') continue;
      if (type === 'hidden') fields[name] = attr(input[0], 'value') ?? '';
      else visible.push(name);
    }
    let button: ParsedForm['button'];
    for (const b of body.matchAll(/<button\b([^>]*)>/gi)) {
      const name = attr(b[0], 'name');
      if (name) {
        button = { name, value: attr(b[0], 'value') ?? '' };
        break;
      }
    }
    forms.push({
      action: new URL(attr(`<x${open}>`, 'action') ?? pageUrl, pageUrl).toString(),
      method: (attr(`<x${open}>`, 'method') ?? 'get').toLowerCase(),
      fields,
      visible,
      button,
      text: body
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    });
  }
  return forms;
}

export interface Person {
  username: string;
  password: string;
}

export interface StepResult {
  /** The URL the flow ended at (the client's redirect_uri with its query, or the last page). */
  url: string;
  status: number;
  html?: string;
}

/** One user agent with its own cookies. */
export class FormAgent {
  readonly jar = new CookieJar();
  /** Every page URL visited, in order (for assertions about where the flow went). */
  readonly visited: string[] = [];

  /** `fetcher`: the global fetch by default; a fetch that trusts a local CA for an https run (tests/flows/https-local). */
  constructor(
    private readonly fetcher: (url: string, init: RequestInit) => Promise<Response> = (url, init) => fetch(url, init),
  ) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await this.fetcher(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.jar.header() },
    });
    this.jar.store(res);
    this.visited.push(url);
    return res;
  }

  async submit(form: ParsedForm, values: Record<string, string> = {}): Promise<Response> {
    const data = new URLSearchParams({
      ...form.fields,
      ...(form.button ? { [form.button.name]: form.button.value } : {}),
      ...values,
    });
    if (form.method === 'post') {
      return this.request(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: data,
      });
    }
    const url = new URL(form.action);
    for (const [k, v] of data) url.searchParams.set(k, v);
    return this.request(url.toString());
  }

  /**
   * Starts at `startUrl` and acts like a person until the browser lands on `stopAt` (a redirect_uri) or on a page
   * with nothing left to submit: signs in, consents, confirms device codes. Never presses abort/deny buttons.
   */
  async drive(
    startUrl: string,
    person: Person,
    stopAt?: string,
    extra: Record<string, string> = {},
  ): Promise<StepResult> {
    let res = await this.request(startUrl);
    let url = startUrl;
    for (let hops = 0; hops < 25; hops++) {
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).toString();
        if (stopAt && url.startsWith(stopAt)) return { url, status: res.status };
        res = await this.request(url);
        continue;
      }
      const html = await res.text();
      const forms = parseForms(html, url).filter(
        (f) => !/abort|deny|cancel/i.test(`${f.action} ${f.button?.name ?? ''} ${f.button?.value ?? ''}`),
      );
      if (res.status !== 200 || forms.length === 0) return { url, status: res.status, html };
      const form =
        forms.find((f) => f.visible.includes('password')) ??
        forms.find((f) => f.visible.length === 0 || f.visible.every((n) => n in extra)) ??
        forms[0]!;
      const values: Record<string, string> = {};
      if (form.visible.includes('username')) values.username = person.username;
      if (form.visible.includes('password')) values.password = person.password;
      for (const name of form.visible) if (name in extra) values[name] = extra[name]!;
      res = await this.submit(form, values);
      url = form.action;
    }
    throw new Error(`flow did not settle (last ${url})`);
  }
}
