/**
 * The list + detail pattern of the resource screens (clients, resource servers, users, groups, roles):
 * - ResourceList: search mapped to the API's filter, sort within the page, paging with the API's cursors;
 * - the detail route (`#/clients/<id>`), edit fields that carry the limits of the served OpenAPI document
 *   (min/max/maxLength/pattern read from /auth/admin/openapi.json, so the browser checks them before the round trip),
 *   a PATCH of only the fields that changed, and the API's problem (RFC 9457 `invalid_params`) shown at its field in
 *   human words;
 * - ConfirmDialog: every destructive action names what it destroys and asks first.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Problem } from './api';
import { apiBase } from './auth';
import { ScopedButton, useAction } from './ui';

// ---------------------------------------------------------------------------------------------------------------
// Human words for the API's field reasons

/** Names of settings a reason may mention, in the words of the screens. */
const SETTING_WORDS: Record<string, string> = {
  'settings.nhe.hardMaxTokenLifetime': "the tenant's hard maximum token lifetime",
  'settings.nhe.defaultMaxTokenLifetime': "the tenant's default maximum token lifetime",
  hardMaxTokenLifetime: 'the hard maximum token lifetime',
  tokenEndpointAuthMethod: 'the authentication method',
};

const sentence = (s: string) => {
  const t = s.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

const UNIT: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};
const unit = (kind: string, n: string) => {
  const u = UNIT[kind];
  return u ? ` ${n === '1' ? u[0] : u[1]}` : '';
};

/**
 * The API's reason for one field, as a sentence: zod's raw texts ("Too big: expected number to be <=900") become
 * "Must be at most 900."; the API's own reasons are kept, with setting paths named in words.
 */
export function humanReason(reason: string): string {
  let m = /^Too big: expected (\w+) to (?:have|be) <(=?)(-?[\d.e+]+)(?: (\w+))?/.exec(reason);
  if (m) {
    const [, kind = '', eq, n = ''] = m;
    return eq ? `Must be at most ${n}${unit(kind, n)}.` : `Must be less than ${n}${unit(kind, n)}.`;
  }
  m = /^Too small: expected (\w+) to (?:have|be) >(=?)(-?[\d.e+]+)/.exec(reason);
  if (m) {
    const [, kind = '', eq, n = ''] = m;
    if (eq && n === '1' && (kind === 'string' || kind === 'array')) return 'Must not be empty.';
    return eq ? `Must be at least ${n}${unit(kind, n)}.` : `Must be more than ${n}${unit(kind, n)}.`;
  }
  m = /^Invalid input: expected (\w+), received (\w+)/.exec(reason);
  if (m) {
    const [, want = '', got = ''] = m;
    if (got === 'undefined') return 'Required.';
    if (want === 'int') return 'Must be a whole number.';
    return `Must be ${/^[aeiou]/.test(want) ? 'an' : 'a'} ${want}, not ${/^[aeiou]/.test(got) ? 'an' : 'a'} ${got}.`;
  }
  m = /^Invalid option: expected one of (.*)$/.exec(reason);
  if (m) return `Must be one of ${(m[1] ?? '').replace(/"/g, '').split('|').join(', ')}.`;
  if (/^Invalid (input|string): must match pattern/.test(reason))
    return 'Has characters or a shape that is not allowed here.';
  if (/^Invalid (URL|url)/.test(reason)) return 'Must be an absolute URL.';
  if (/^Invalid email/.test(reason)) return 'Must be an email address.';
  if (/^Invalid input$/.test(reason)) return 'Is not valid here.';
  m = /^unknown field\(s\): (.*)$/.exec(reason);
  if (m) return `The API does not accept ${m[1] ?? 'this field'}.`;
  m = /^Unrecognized keys?: (.*)$/.exec(reason);
  if (m) return `The API does not accept ${(m[1] ?? '').replace(/"/g, '')}.`;
  if (/^Number must be an integer|expected int/.test(reason)) return 'Must be a whole number.';
  let out = reason;
  for (const [k, v] of Object.entries(SETTING_WORDS)) out = out.split(k).join(v);
  return sentence(out);
}

/** The reasons the problem gives for one field (`body.config.nhe.maxTokenLifetime`), in human words. */
export function fieldReasons(problem: Problem | undefined, name: string): string[] {
  return (problem?.invalid_params ?? [])
    .filter((p) => p.name === name || p.name.startsWith(`${name}.`))
    .map((p) => humanReason(p.reason));
}

/** The problem of the last action, its reasons in human words; reasons of fields on screen are shown there only. */
export function ProblemBox(props: { problem: Problem | undefined; shownFields?: string[] }) {
  const p = props.problem;
  if (!p) return null;
  const shown = props.shownFields ?? [];
  const others = (p.invalid_params ?? []).filter(
    (ip) => !shown.some((n) => ip.name === n || ip.name.startsWith(`${n}.`)),
  );
  const onScreen = (p.invalid_params ?? []).length - others.length;
  return (
    <div className="problem" role="alert" data-status={p.status}>
      <p>
        <strong>{sentence(p.detail ?? p.title)}</strong>
        {onScreen ? ` See the ${onScreen === 1 ? 'field' : `${onScreen} fields`} marked below.` : ''}
      </p>
      {p.required_scope ? (
        <p>
          Your sign-in lacks the scope <code>{p.required_scope}</code>.
        </p>
      ) : null}
      {others.length ? (
        <ul>
          {others.map((ip) => (
            <li key={ip.name}>
              <code>{ip.name.replace(/^(body|query|params)\./, '')}</code>: {humanReason(ip.reason)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Limits from the served OpenAPI document

/** What an input can check before the round trip. */
export interface InputLimits {
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  maxItems?: number;
}

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  maxItems?: number;
};
interface OpenApiDoc {
  paths?: Record<
    string,
    Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

let documentPromise: Promise<OpenApiDoc | undefined> | undefined;
/** The API's own OpenAPI document (public, no tenant data), read once per page load. */
function openApiDocument(): Promise<OpenApiDoc | undefined> {
  documentPromise ??= fetch(`${apiBase()}/auth/admin/openapi.json`, { headers: { accept: 'application/json' } })
    .then((r) => (r.ok ? (r.json() as Promise<OpenApiDoc>) : undefined))
    .catch(() => undefined);
  return documentPromise;
}

function deref(doc: OpenApiDoc, s: JsonSchema | undefined): JsonSchema | undefined {
  if (!s?.$ref) return s;
  const name = s.$ref.replace('#/components/schemas/', '');
  return deref(doc, doc.components?.schemas?.[name]);
}

/** The branches of a schema: a nullable field is anyOf [the value, null]. */
function branches(doc: OpenApiDoc, s: JsonSchema | undefined): JsonSchema[] {
  const r = deref(doc, s);
  if (!r) return [];
  const alts = r.anyOf ?? r.oneOf ?? r.allOf;
  return alts ? alts.flatMap((a) => branches(doc, a)) : [r];
}

function limitsAt(doc: OpenApiDoc, operationId: string, field: string): InputLimits {
  let schema: JsonSchema | undefined;
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item))
      if (op.operationId === operationId) schema = op.requestBody?.content?.['application/json']?.schema;
  let here: JsonSchema[] = branches(doc, schema);
  for (const key of field.split('.').filter(Boolean)) {
    here = here.flatMap((b) => branches(doc, b.properties?.[key] ?? (key === '[]' ? b.items : undefined)));
  }
  const out: InputLimits = {};
  for (const b of here) {
    if (b.type === 'null') continue;
    if (typeof b.minimum === 'number') out.min = b.minimum;
    if (typeof b.exclusiveMinimum === 'number') out.min = b.exclusiveMinimum + 1;
    if (typeof b.maximum === 'number') out.max = b.maximum;
    if (typeof b.exclusiveMaximum === 'number') out.max = b.exclusiveMaximum - 1;
    if (typeof b.minLength === 'number') out.minLength = b.minLength;
    if (typeof b.maxLength === 'number') out.maxLength = b.maxLength;
    if (typeof b.pattern === 'string') out.pattern = b.pattern;
    if (typeof b.maxItems === 'number') out.maxItems = b.maxItems;
  }
  // Numbers beyond what an input can hold (Number.MAX_SAFE_INTEGER and friends) are no help to a person.
  if (out.max !== undefined && out.max > 1e12) delete out.max;
  if (out.min !== undefined && out.min < -1e12) delete out.min;
  return out;
}

/** `limits(field)` of one operation's request body (`updateClient`, `config.nhe.maxTokenLifetime`). */
export function useLimits(operationId: string): (field: string) => InputLimits {
  const [doc, setDoc] = useState<OpenApiDoc | undefined>();
  useEffect(() => {
    let live = true;
    void openApiDocument().then((d) => {
      if (live) setDoc(d);
    });
    return () => {
      live = false;
    };
  }, []);
  return useCallback((field: string) => (doc ? limitsAt(doc, operationId, field) : {}), [doc, operationId]);
}

/**
 * An HTML `pattern` is matched whole with the `v` flag: a pattern the browser could not compile would be ignored
 * silently, so only patterns that compile that way are set (the API checks every value anyway).
 */
function htmlPattern(p: string | undefined): string | undefined {
  if (!p) return undefined;
  const body = p.replace(/^\^/, '').replace(/\$$/, '');
  try {
    new RegExp(`^(?:${body})$`, 'v');
    return body;
  } catch {
    return undefined;
  }
}

const limitHint = (l: InputLimits, kind: 'number' | 'text' | 'list'): string | undefined => {
  const parts: string[] = [];
  if (kind === 'number') {
    if (l.min !== undefined && l.max !== undefined) parts.push(`${l.min} to ${l.max}`);
    else if (l.min !== undefined) parts.push(`at least ${l.min}`);
    else if (l.max !== undefined) parts.push(`at most ${l.max}`);
  }
  if (kind === 'text' && l.maxLength !== undefined) parts.push(`at most ${l.maxLength} characters`);
  if (kind === 'list' && l.maxItems !== undefined) parts.push(`at most ${l.maxItems}`);
  return parts.length ? parts.join(', ') : undefined;
};

// ---------------------------------------------------------------------------------------------------------------
// Edit fields

interface BaseProps {
  label: string;
  /** The problem's field name: `body.redirectUris`. */
  name: string;
  problem: Problem | undefined;
  hint?: ReactNode;
  limits?: InputLimits;
  disabled?: boolean;
}

function FieldShell(
  props: BaseProps & {
    limitText?: string | undefined;
    children: (a: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  },
) {
  const id = useId();
  const errors = fieldReasons(props.problem, props.name);
  const hint = [props.hint, props.limitText ? `(${props.limitText})` : null].filter(Boolean);
  const hintId = hint.length ? `${id}-hint` : undefined;
  const errId = errors.length ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={errors.length ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, describedBy, invalid: errors.length > 0 })}
      {hint.length ? (
        <p className="hint" id={hintId}>
          {hint.map((h, i) => (
            <span key={i}>
              {i ? ' ' : ''}
              {h}
            </span>
          ))}
        </p>
      ) : null}
      {errors.length ? (
        <p className="field-error" id={errId} data-field={props.name}>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

export function EditText(
  props: BaseProps & {
    value: string;
    onChange: (v: string) => void;
    type?: 'text' | 'url' | 'password' | 'email';
    required?: boolean;
    autoComplete?: string;
    multiline?: boolean;
  },
) {
  const l = props.limits ?? {};
  return (
    <FieldShell {...props} limitText={limitHint(l, 'text')}>
      {({ id, describedBy, invalid }) =>
        props.multiline ? (
          <textarea
            id={id}
            rows={6}
            value={props.value}
            disabled={props.disabled}
            maxLength={l.maxLength}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            onChange={(e) => props.onChange(e.target.value)}
          />
        ) : (
          <input
            id={id}
            type={props.type ?? 'text'}
            value={props.value}
            required={props.required}
            disabled={props.disabled}
            minLength={l.minLength}
            maxLength={l.maxLength}
            pattern={htmlPattern(l.pattern)}
            autoComplete={props.autoComplete ?? 'off'}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            onChange={(e) => props.onChange(e.target.value)}
          />
        )
      }
    </FieldShell>
  );
}

/** A number; empty is `undefined` (for a setting that `null` removes). */
export function EditNumber(
  props: BaseProps & { value: number | undefined; onChange: (v: number | undefined) => void; required?: boolean },
) {
  const l = props.limits ?? {};
  return (
    <FieldShell {...props} limitText={limitHint(l, 'number')}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          step={1}
          min={l.min}
          max={l.max}
          required={props.required}
          disabled={props.disabled}
          value={props.value ?? ''}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(e) => props.onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      )}
    </FieldShell>
  );
}

/** A list of strings, one a line (URIs, scopes, identifiers). */
export function EditList(props: BaseProps & { value: string[]; onChange: (v: string[]) => void }) {
  const l = props.limits ?? {};
  const [text, setText] = useState(props.value.join('\n'));
  const last = useRef(props.value);
  // A new value from outside (loaded, saved) replaces the text; typing keeps blank lines while editing.
  if (last.current !== props.value && JSON.stringify(last.current) !== JSON.stringify(props.value)) {
    last.current = props.value;
    setText(props.value.join('\n'));
  }
  return (
    <FieldShell {...props} limitText={limitHint(l, 'list')} hint={props.hint ?? 'One a line.'}>
      {({ id, describedBy, invalid }) => (
        <textarea
          id={id}
          rows={Math.min(8, Math.max(2, props.value.length + 1))}
          value={text}
          disabled={props.disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(e) => {
            setText(e.target.value);
            const v = e.target.value
              .split(/\n/)
              .map((s) => s.trim())
              .filter(Boolean);
            last.current = v;
            props.onChange(v);
          }}
        />
      )}
    </FieldShell>
  );
}

export function EditCheck(props: BaseProps & { checked: boolean; onChange: (v: boolean) => void }) {
  const id = useId();
  const errors = fieldReasons(props.problem, props.name);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errId = errors.length ? `${id}-err` : undefined;
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        aria-describedby={[hintId, errId].filter(Boolean).join(' ') || undefined}
        onChange={(e) => props.onChange(e.target.checked)}
      />
      <label htmlFor={id}>{props.label}</label>
      {props.hint ? (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {errors.length ? (
        <p className="field-error" id={errId} data-field={props.name}>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

export function EditSelect<V extends string>(
  props: BaseProps & { value: V; options: ReadonlyArray<{ value: V; label: string }>; onChange: (v: V) => void },
) {
  return (
    <FieldShell {...props}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          value={props.value}
          disabled={props.disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(e) => props.onChange(e.target.value as V)}
        >
          {props.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldShell>
  );
}

/** A set of choices as checkboxes (grant types, NHE types). */
export function EditChoices<V extends string>(
  props: BaseProps & { value: V[]; options: readonly V[]; onChange: (v: V[]) => void },
) {
  const errors = fieldReasons(props.problem, props.name);
  return (
    <fieldset className={errors.length ? 'inline field-invalid' : 'inline'}>
      <legend>{props.label}</legend>
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      {props.options.map((o) => (
        <span className="field field-check" key={o}>
          <input
            id={`${props.name}-${o}`}
            type="checkbox"
            disabled={props.disabled}
            checked={props.value.includes(o)}
            onChange={(e) =>
              props.onChange(e.target.checked ? [...props.value, o] : props.value.filter((x) => x !== o))
            }
          />
          <label htmlFor={`${props.name}-${o}`}>{o}</label>
        </span>
      ))}
      {errors.length ? (
        <p className="field-error" data-field={props.name}>
          {errors.join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
}

/** A JSON value (claims, key sets): the text is parsed on change; an unparsable text is reported at the field. */
export function EditJson(
  props: BaseProps & { value: unknown; onChange: (v: unknown) => void; onInvalid: (why: string | undefined) => void },
) {
  const [text, setText] = useState(() => (props.value === undefined ? '' : JSON.stringify(props.value, null, 2)));
  const [bad, setBad] = useState<string | undefined>();
  return (
    <FieldShell {...props} hint={bad ? `Not JSON yet: ${bad}` : (props.hint ?? 'JSON; empty removes it.')}>
      {({ id, describedBy, invalid }) => (
        <textarea
          id={id}
          rows={6}
          className="mono"
          value={text}
          disabled={props.disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || Boolean(bad) || undefined}
          onChange={(e) => {
            setText(e.target.value);
            if (!e.target.value.trim()) {
              setBad(undefined);
              props.onInvalid(undefined);
              props.onChange(undefined);
              return;
            }
            try {
              props.onChange(JSON.parse(e.target.value) as unknown);
              setBad(undefined);
              props.onInvalid(undefined);
            } catch (err) {
              setBad((err as Error).message);
              props.onInvalid(props.label);
            }
          }}
        />
      )}
    </FieldShell>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Changes and saving

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The fields of `edited` that differ from `original`: nested objects recurse (the API merges a partial `config`),
 * arrays and values are compared whole. A field cleared to undefined becomes null (the API's "remove it").
 */
export function changedFields(original: Plain, edited: Plain, prefix = ''): { patch: Plain; paths: string[] } {
  const patch: Plain = {};
  const paths: string[] = [];
  for (const key of Object.keys(edited)) {
    const a = original[key];
    const b = edited[key];
    if (isPlain(b) && isPlain(a)) {
      const inner = changedFields(a, b, `${prefix}${key}.`);
      if (inner.paths.length) {
        patch[key] = inner.patch;
        paths.push(...inner.paths);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      patch[key] = b === undefined ? null : b;
      paths.push(`${prefix}${key}`);
    }
  }
  return { patch, paths };
}

/**
 * The editing state of one detail page: the item as the API last answered, the draft, and save() that sends only
 * what changed and says what was saved in words ("Saved client orders-app: redirect URIs").
 */
export function useEditor<T, D extends Plain>(opts: {
  item: T | undefined;
  toDraft: (t: T) => D;
  /** The thing in words: `client orders-app`. */
  what: (t: T) => string;
  labels: Record<string, string>;
  save: (patch: Partial<D>) => Promise<T>;
  onSaved: (t: T) => void;
}) {
  const { item, toDraft } = opts;
  // The draft is made again only when the API answers with a new item (toDraft is a fresh function every render).
  const original = useMemo(() => (item ? toDraft(item) : undefined), [item]); // eslint-disable-line react-hooks/exhaustive-deps
  const [draft, setDraft] = useState<D | undefined>(original);
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState('');
  const act = useAction();
  useEffect(() => setDraft(original), [original]);
  const diff = useMemo(
    () => (original && draft ? changedFields(original, draft) : { patch: {}, paths: [] }),
    [original, draft],
  );
  const set = useCallback(<K extends keyof D>(key: K, value: D[K]) => {
    setMessage('');
    setDraft((d) => (d ? { ...d, [key]: value } : d));
  }, []);
  const jsonInvalid = useCallback((field: string, why: string | undefined) => {
    setJsonErrors((e) => {
      const next = { ...e };
      if (why) next[field] = why;
      else delete next[field];
      return next;
    });
  }, []);
  const save = async () => {
    if (!item) return;
    if (!diff.paths.length) {
      setMessage('Nothing to save: no field changed.');
      return;
    }
    const label = (p: string) => opts.labels[p] ?? opts.labels[p.split('.')[0] ?? p] ?? p;
    const names = [...new Set(diff.paths.map(label))];
    const saved = await act.run(() => opts.save(diff.patch as Partial<D>));
    if (saved) {
      setMessage(`Saved ${opts.what(saved)}: ${names.join(', ')}.`);
      opts.onSaved(saved);
    }
  };
  return {
    draft,
    set,
    dirty: diff.paths.length > 0,
    changed: diff.paths,
    jsonErrors: Object.keys(jsonErrors),
    jsonInvalid,
    save,
    reset: () => {
      setDraft(original);
      act.setProblem(undefined);
    },
    message,
    setMessage,
    problem: act.problem,
    busy: act.busy,
  };
}

/** The save bar of a detail form: Save (only when something changed), Discard, what happened. */
export function SaveBar(props: {
  scope: string;
  editor: { dirty: boolean; busy: boolean; message: string; reset: () => void; jsonErrors: string[] };
  what: string;
}) {
  const e = props.editor;
  return (
    <div className="save-bar">
      <ScopedButton scope={props.scope} type="submit" busy={e.busy}>
        Save {props.what}
      </ScopedButton>
      <button type="button" className="secondary" disabled={!e.dirty || e.busy} onClick={e.reset}>
        Discard changes
      </button>
      <p role="status" className="saved" aria-live="polite">
        {e.jsonErrors.length
          ? `Fix the JSON of ${e.jsonErrors.join(', ')} first.`
          : e.message || (e.dirty ? 'Unsaved changes.' : '')}
      </p>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Confirmation

/**
 * A button for a destructive action that opens a modal dialog naming the thing ("Delete client orders-app?") and
 * acts only on "Really ...". The dialog keeps focus inside and Escape cancels (the <dialog> element does both).
 */
export function ConfirmButton(props: {
  scope: string;
  /** The button: `Delete orders-app` (a row's button may show `Delete` and keep the name for screen readers). */
  label: ReactNode;
  /** The question: `Delete client orders-app?` */
  question: string;
  /** What follows, in a sentence. */
  consequence?: ReactNode;
  /** The confirming button: `Really delete orders-app`. */
  confirm: string;
  onConfirm: () => Promise<unknown>;
  className?: string;
  /** For what cannot be undone on a large scale (a tenant): the confirming button works once this text is typed. */
  typeToConfirm?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const typedId = useId();
  const act = useAction();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const typedOk = props.typeToConfirm === undefined || typed === props.typeToConfirm;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <>
      <ScopedButton scope={props.scope} className={props.className ?? 'danger'} onClick={() => setOpen(true)}>
        {props.label}
      </ScopedButton>
      <dialog
        ref={ref}
        className="confirm-dialog"
        aria-labelledby={headingId}
        onClose={() => {
          setTyped('');
          setOpen(false);
        }}
      >
        <h2 id={headingId}>{props.question}</h2>
        {typeof props.consequence === 'string' ? (
          <p>{props.consequence}</p>
        ) : props.consequence ? (
          <div className="consequence">{props.consequence}</div>
        ) : null}
        {props.typeToConfirm !== undefined ? (
          <div className="field">
            <label htmlFor={typedId}>
              Type <strong>{props.typeToConfirm}</strong> to confirm
            </label>
            <input
              id={typedId}
              value={typed}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => setTyped(e.target.value)}
            />
          </div>
        ) : null}
        <ProblemBox problem={act.problem} />
        <div className="actions">
          <button
            type="button"
            className="danger"
            disabled={act.busy || !typedOk}
            onClick={() =>
              void act.run(async () => {
                await props.onConfirm();
                setOpen(false);
              })
            }
          >
            {act.busy ? 'Working…' : props.confirm}
          </button>
          <button
            type="button"
            className="secondary"
            autoFocus
            onClick={() => {
              setTyped('');
              setOpen(false);
            }}
          >
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A one-time secret (a reset link, a client secret): shown once, selectable and copyable. */
export function ShownOnce(props: { label: string; value: string; note: ReactNode; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status" data-testid={props.testId}>
      <p>{props.note}</p>
      <input aria-label={props.label} readOnly value={props.value} onFocus={(e) => e.target.select()} />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(props.value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : `Copy ${props.label.toLowerCase()}`}
      </button>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Routes

/** The detail part of the hash route: `#/clients/orders-app` → `orders-app` for `clients`. */
export function useDetailRoute(screen: string): [string | undefined, (id: string | undefined) => void] {
  const read = useCallback(() => {
    const parts = window.location.hash.replace(/^#\/?/, '').split('?')[0]?.split('/') ?? [];
    return parts[0] === screen && parts[1] ? decodeURIComponent(parts.slice(1).join('/')) : undefined;
  }, [screen]);
  const [id, setId] = useState(read);
  useEffect(() => {
    const on = () => setId(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, [read]);
  const go = useCallback(
    (next: string | undefined) => {
      window.location.hash = next ? `#/${screen}/${encodeURIComponent(next)}` : `#/${screen}`;
    },
    [screen],
  );
  return [id, go];
}

export const detailHref = (screen: string, id: string) => `#/${screen}/${encodeURIComponent(id)}`;

/**
 * The heading of a detail page takes focus when the page opens (it opens above the list, maybe out of view): the
 * browser scrolls to it and a screen reader announces it.
 */
export function useFocusOnOpen<E extends HTMLElement>() {
  const ref = useRef<E>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}

// ---------------------------------------------------------------------------------------------------------------
// Lists

export interface Column<T> {
  header: string;
  render: (t: T) => ReactNode;
  /** Sorting within the page; absent: the column does not sort. */
  sortValue?: (t: T) => string | number;
}

export interface PageQuery {
  cursor: string | undefined;
  limit: number;
  search: string;
}

const PAGE_SIZES = [10, 25, 50, 100] as const;

/**
 * A list of one resource: the API's search filter (when it has one), sorting within the page, and paging with the
 * API's cursors (Next follows `nextCursor`; Previous goes back to the cursor that opened the page before).
 */
export function ResourceList<T>(props: {
  /** The list's name: `Clients`. */
  label: string;
  columns: Column<T>[];
  rowKey: (t: T) => string;
  rowAttrs?: (t: T) => Record<string, string>;
  load: (q: PageQuery) => Promise<{ items: T[]; nextCursor: string | null }>;
  /** The search box's label, naming what it matches (`Client id starts with`); absent: no search. */
  searchLabel?: string;
  /** More filters (a select), shown beside the search. */
  filters?: ReactNode;
  /** Changes when the list must be read again (after a create or delete, or a filter change). */
  reloadKey?: unknown;
  empty?: string;
}) {
  const [size, setSize] = useState<number>(25);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState<{ items: T[]; nextCursor: string | null; key?: string }>({
    items: [],
    nextCursor: null,
  });
  const [sort, setSort] = useState<{ col: number; dir: 1 | -1 } | undefined>();
  const list = useAction();
  const { load } = props;
  // Another filter (a new load function) starts again at the first page: a cursor belongs to the query it came from.
  const lastLoad = useRef(load);
  if (lastLoad.current !== load) {
    lastLoad.current = load;
    if (cursors.length > 1) setCursors([undefined]);
  }
  const cursor = cursors[cursors.length - 1];
  // The page on screen belongs to one query: until the answer to the current one is in, the list says it is loading.
  const key = JSON.stringify([cursor ?? null, size, applied, cursors.length]);
  useEffect(() => {
    let live = true;
    void list
      .run(() => load({ cursor, limit: size, search: applied }))
      .then((p) => {
        if (p && live) setPage({ ...p, key });
      });
    return () => {
      live = false;
    };
  }, [load, cursor, size, applied, props.reloadKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const rows = useMemo(() => {
    const col = sort ? props.columns[sort.col] : undefined;
    if (!sort || !col?.sortValue) return page.items;
    const key = col.sortValue;
    return [...page.items].sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * sort.dir;
    });
  }, [page.items, sort, props.columns]);
  const pageNo = cursors.length;
  const loading = list.busy || (page.key !== key && !list.problem);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    // A narrow screen (a phone) scrolls the table sideways: say so, rather than hide columns without a hint.
    const el = wrapRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setOverflowing(el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div className="resource-list">
      <form
        className="list-controls"
        role="search"
        aria-label={`Search ${props.label.toLowerCase()}`}
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([undefined]);
          setApplied(search.trim());
        }}
      >
        {props.searchLabel ? (
          <span className="field">
            <label htmlFor={`${props.label}-search`}>{props.searchLabel}</label>
            <input
              id={`${props.label}-search`}
              type="search"
              value={search}
              autoComplete="off"
              onChange={(e) => setSearch(e.target.value)}
            />
          </span>
        ) : null}
        {props.filters}
        {props.searchLabel ? <button type="submit">Search</button> : null}
        <span className="field">
          <label htmlFor={`${props.label}-size`}>Per page</label>
          <select
            id={`${props.label}-size`}
            value={size}
            onChange={(e) => {
              setCursors([undefined]);
              setSize(Number(e.target.value));
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </span>
      </form>
      <ProblemBox problem={list.problem} />
      {overflowing ? (
        <p className="hint scroll-cue" data-testid="scroll-cue">
          <span aria-hidden="true">⇆ </span>
          {props.columns.length} columns: scroll the table sideways to see them all.
        </p>
      ) : null}
      <div
        ref={wrapRef}
        className={overflowing ? 'table-wrap overflowing' : 'table-wrap'}
        tabIndex={0}
        role="region"
        aria-label={props.label}
      >
        <table>
          <thead>
            <tr>
              {props.columns.map((c, i) => (
                <th
                  key={c.header}
                  scope="col"
                  aria-sort={sort?.col === i ? (sort.dir === 1 ? 'ascending' : 'descending') : undefined}
                >
                  {c.sortValue ? (
                    <button
                      type="button"
                      className="sort"
                      onClick={() =>
                        setSort(sort?.col === i ? { col: i, dir: sort.dir === 1 ? -1 : 1 } : { col: i, dir: 1 })
                      }
                    >
                      {c.header}
                      <span aria-hidden="true">{sort?.col === i ? (sort.dir === 1 ? ' ▲' : ' ▼') : ' ↕'}</span>
                    </button>
                  ) : (
                    c.header
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && !loading ? (
              <tr>
                <td colSpan={props.columns.length}>
                  {applied ? `Nothing matches “${applied}”.` : (props.empty ?? 'None yet.')}
                </td>
              </tr>
            ) : null}
            {rows.map((t) => (
              <tr key={props.rowKey(t)} {...(props.rowAttrs?.(t) ?? {})}>
                {props.columns.map((c) => (
                  <td key={c.header}>{c.render(t)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label={`Pages of ${props.label.toLowerCase()}`}>
        <button type="button" disabled={pageNo === 1 || loading} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous page
        </button>
        <span aria-live="polite">
          Page {pageNo}
          {loading ? ' (loading…)' : `, ${rows.length} shown`}
        </span>
        <button
          type="button"
          disabled={!page.nextCursor || loading}
          onClick={() => {
            const next = page.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Next page
        </button>
      </nav>
    </div>
  );
}

/** A status shown as a status (not a button): `Enabled` / `Disabled`. */
export function StatusBadge(props: { on: boolean; onText?: string; offText?: string }) {
  return (
    <span className={props.on ? 'badge badge-on' : 'badge badge-off'} data-status={props.on ? 'on' : 'off'}>
      {props.on ? (props.onText ?? 'Enabled') : (props.offText ?? 'Disabled')}
    </span>
  );
}
