/**
 * Shapes the console's screens repeated: a detail form's field bound to its editor (the API's field name, its
 * limits, the draft's value, its problem), a create form, and the delete confirmation of a row or a detail page.
 */
import type { FormEvent, ReactNode } from 'react';
import type { Problem } from './api';
import { ConfirmButton, type InputLimits } from './resource-ui';

interface BoundEditor<D> {
  draft: D | undefined;
  problem: Problem | undefined;
  set: <K extends keyof D>(key: K, value: D[K]) => void;
}

/**
 * The props of an Edit* input for a top-level field of the draft: `<EditList label="Redirect URIs"
 * {...field('redirectUris')} />` is name `body.redirectUris`, the API's limits for it, the draft's value, the save's
 * problem and the editor's setter; `plain` the same without limits, `check` with `checked` for `value` (EditCheck).
 * Read only while the draft is loaded (the forms render once it is).
 */
export function bindFields<D>(ed: BoundEditor<D>, limits: (field: string) => InputLimits) {
  const common = <K extends keyof D & string>(key: K) => ({
    name: `body.${key}`,
    problem: ed.problem,
    onChange: (v: D[K]) => ed.set(key, v),
  });
  const value = <K extends keyof D & string>(key: K) => (ed.draft as D)[key];
  /** With the API's limits on the input. */
  const field = <K extends keyof D & string>(key: K) => ({ ...common(key), limits: limits(key), value: value(key) });
  /** Without limits (a choice, a select, JSON): the value alone. */
  const plain = <K extends keyof D & string>(key: K) => ({ ...common(key), value: value(key) });
  const check = <K extends keyof D & string>(key: K) => ({ ...common(key), checked: value(key) });
  return { field, plain, check };
}

/** A create form: a card with its heading, whose submit goes to `onSubmit` (never a page load). */
export function CreateForm(props: { label: string; heading?: ReactNode; onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="card"
      aria-label={props.label}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      <h2>{props.heading ?? props.label}</h2>
      {props.children}
    </form>
  );
}

/**
 * Delete, confirmed in a dialog: "Delete the {kind} {what or name}?", what follows, and "Really delete {name}"; `remove`
 * calls the API, then `onDeleted`.
 */
export function DeleteButton(props: {
  scope: string;
  /** `client`, `user`, `group`: the question names it. */
  kind: string;
  name: string;
  /** The thing in the question when more than its name: `orders (https://orders.example)`. */
  what?: string;
  /** The button; default `Delete {name}`. */
  label?: ReactNode;
  consequence?: ReactNode;
  remove: () => Promise<unknown>;
  onDeleted: () => void;
}) {
  return (
    <ConfirmButton
      scope={props.scope}
      label={props.label ?? `Delete ${props.name}`}
      question={`Delete the ${props.kind} ${props.what ?? props.name}?`}
      consequence={props.consequence}
      confirm={`Really delete ${props.name}`}
      onConfirm={async () => {
        await props.remove();
        props.onDeleted();
      }}
    />
  );
}
