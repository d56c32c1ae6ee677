/** Shared pieces of every screen: the console context, scope-aware buttons, fields that show the API's problems. */
import { createContext, useCallback, useContext, useId, useState, type ReactNode } from 'react';
import { ApiProblem, type Api, type Problem } from './api';
import type { Session } from './auth';

export interface ConsoleContext {
  session: Session;
  api: Api;
  /** The tenant being worked on (a system admin can switch; a tenant admin has only their own). */
  tenantId: number;
  can: (scope: string) => boolean;
  /** Switches the console to another tenant (system administrators; absent where the tenant is fixed). */
  switchTenant?: (tenantId: number) => void;
}

export const Ctx = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('outside the console');
  return c;
}

/** Runs an API action: busy while it runs, its problem kept for the fields it names. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>();
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setProblem(undefined);
    try {
      return await fn();
    } catch (err) {
      setProblem(
        err instanceof ApiProblem
          ? err.problem
          : { type: 'https://idp.dev/problems/internal-error', title: (err as Error).message, status: 0 },
      );
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, problem, setProblem };
}

/** The reason the problem gives for one field (`body.settings.nhe.maxNhePerTenant`), if any. */
export function fieldError(problem: Problem | undefined, name: string): string | undefined {
  return problem?.invalid_params?.find((p) => p.name === name || p.name.startsWith(`${name}.`))?.reason;
}

export function Field(props: {
  label: string;
  name: string;
  problem: Problem | undefined;
  hint?: ReactNode;
  children: (a: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}) {
  const id = useId();
  const error = fieldError(props.problem, props.name);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errId = error ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, describedBy, invalid: Boolean(error) })}
      {props.hint ? (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errId} data-field={props.name}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function TextField(props: {
  label: string;
  name: string;
  problem: Problem | undefined;
  value: string;
  onChange: (v: string) => void;
  hint?: ReactNode;
  type?: string;
  required?: boolean;
  autoComplete?: string;
}) {
  return (
    <Field label={props.label} name={props.name} problem={props.problem} hint={props.hint}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type={props.type ?? 'text'}
          value={props.value}
          required={props.required}
          autoComplete={props.autoComplete ?? 'off'}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function CheckField(props: {
  label: string;
  name: string;
  problem: Problem | undefined;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: ReactNode;
}) {
  const id = useId();
  const error = fieldError(props.problem, props.name);
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange(e.target.checked)}
        aria-describedby={error ? `${id}-err` : props.hint ? `${id}-hint` : undefined}
      />
      <label htmlFor={id}>{props.label}</label>
      {props.hint ? (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-err`} data-field={props.name}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A button for an operation that needs `scope` (and every one of `alsoScopes`, where the API checks more than the
 * route's scope): disabled, with the missing scopes named, when the token lacks any.
 */
export function ScopedButton(props: {
  scope: string;
  alsoScopes?: readonly string[];
  children: ReactNode;
  onClick?: () => void;
  type?: 'button' | 'submit';
  busy?: boolean;
  className?: string;
}) {
  const { can } = useConsole();
  const missing = [...new Set([props.scope, ...(props.alsoScopes ?? [])])].filter((s) => !can(s));
  const allowed = missing.length === 0;
  const noteId = useId();
  return (
    <span className="scoped">
      <button
        type={props.type ?? 'button'}
        className={props.className}
        disabled={!allowed || props.busy}
        aria-describedby={allowed ? undefined : noteId}
        data-scope={props.scope}
        onClick={props.onClick}
      >
        {props.busy ? 'Working…' : props.children}
      </button>
      {allowed ? null : (
        <span className="needs-scope" id={noteId}>
          needs scope{missing.length > 1 ? 's' : ''}{' '}
          {missing.map((m, i) => (
            <span key={m}>
              {i ? ', ' : ''}
              <code>{m}</code>
            </span>
          ))}
        </span>
      )}
    </span>
  );
}

/** The problem of the last action: its title and detail, and the field reasons no field on screen shows. */
export function ProblemView(props: { problem: Problem | undefined; shownFields?: string[] }) {
  const p = props.problem;
  if (!p) return null;
  const shown = props.shownFields ?? [];
  const others = (p.invalid_params ?? []).filter(
    (ip) => !shown.some((n) => ip.name === n || ip.name.startsWith(`${n}.`)),
  );
  return (
    <div className="problem" role="alert" data-status={p.status}>
      <p>
        <strong>{p.title}</strong> {p.status ? <span className="status">({p.status})</span> : null}
      </p>
      {p.detail ? <p>{p.detail}</p> : null}
      {p.required_scope ? (
        <p>
          Required scope: <code>{p.required_scope}</code>
        </p>
      ) : null}
      {others.length ? (
        <ul>
          {others.map((ip) => (
            <li key={ip.name}>
              <code>{ip.name}</code>: {ip.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Busy(props: { busy: boolean; label?: string }) {
  return (
    <p className="busy" role="status" aria-live="polite">
      {props.busy ? (props.label ?? 'Working…') : ''}
    </p>
  );
}

export const splitList = (s: string) => s.split(/[\s,]+/).filter(Boolean);
export const fmtDate = (s: string | null | undefined) =>
  s
    ? new Date(s)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '—';

/** Delete with a second, explicit confirmation step (keyboard friendly, no browser dialog). */
export function DeleteButton(props: { scope: string; what: string; onConfirm: () => Promise<unknown> }) {
  const [asking, setAsking] = useState(false);
  const act = useAction();
  if (!asking) {
    return (
      <ScopedButton scope={props.scope} className="danger" onClick={() => setAsking(true)}>
        Delete {props.what}
      </ScopedButton>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={`Confirm deleting ${props.what}`}>
      <button
        type="button"
        className="danger"
        disabled={act.busy}
        autoFocus
        onClick={() =>
          void act.run(async () => {
            await props.onConfirm();
            setAsking(false);
          })
        }
      >
        {act.busy ? 'Deleting…' : `Really delete ${props.what}`}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
      <ProblemView problem={act.problem} />
    </span>
  );
}
