/**
 * Declarative option tables: a configuration class (`JwtConfig`, `SessionConfig`)
 * lists each option once, as a row naming the setting it writes, its default and
 * the check that validates and normalizes a value. The rows drive the setters, the
 * plain-options form, the unknown-option check and the defaults, so adding an
 * option is one row (plus its typed field and setter, which TypeScript needs).
 *
 * @internal
 */

/**
 * One option: the setting it writes (several options may write one setting, e.g.
 * `sameSite` and `dangerouslyAllowSameSiteNone`), the setting's default, and `read`,
 * which validates a value — its `ConfigurationError` names the option as its setter
 * does — and returns the setting's value.
 *
 * @internal
 */
export interface OptionRow<S, K extends keyof S, V> {
  readonly setting: K;
  readonly default: S[K];
  /** Validates a setter's argument into the setting's value; may read the draft. */
  readonly read: (value: V, draft: S) => S[K];
  /** A check the plain-options form adds before `read` (a setter's default argument). */
  readonly check?: (value: unknown) => void;
}

/** A table of rows by option name, in the order options are applied. @internal */
export type OptionTable<S> = Readonly<Record<string, OptionRow<S, keyof S, never>>>;

/** The value type a row's setter takes. @internal */
export type RowValue<R> = R extends { read: (value: infer V, draft: never) => unknown } ? V : never;

/**
 * The row builder of one draft type `S` (curried, so that the setting and value
 * types are inferred per row).
 *
 * @internal
 */
export function rowsOf<S>() {
  return <K extends keyof S, V>(
    setting: K,
    defaultValue: S[K],
    read: (value: V, draft: S) => S[K],
    check?: (value: unknown) => void,
  ): OptionRow<S, K, V> =>
    check === undefined
      ? { setting, default: defaultValue, read }
      : { setting, default: defaultValue, read, check };
}

/**
 * A fresh draft: `base` (the settings no row writes), then each setting's default
 * from the first row that writes it.
 *
 * @internal
 */
export function draftOf<S extends object>(table: OptionTable<S>, base: Partial<S>): S {
  const draft: Partial<S> = { ...base };
  for (const row of Object.values(table)) {
    if (!(row.setting in draft)) draft[row.setting] = row.default;
  }
  return draft as S;
}

/** Validates `value` with the option's row and writes its setting into `draft`. @internal */
export function setOption<S>(
  table: OptionTable<S>,
  draft: S,
  option: string,
  value: unknown,
): void {
  const row = table[option];
  if (row === undefined) throw new RangeError(`no row for ${option}`);
  const read = row.read as (value: unknown, draft: S) => S[keyof S];
  draft[row.setting] = read(value, draft);
}

/**
 * Applies the options of the plain-object form that are not `undefined`, in table
 * order, each as its setter would (after the row's `check`). Unknown names are the
 * caller's to refuse first, with `rejectUnknownOptions`.
 *
 * @internal
 */
export function applyOptions<S>(table: OptionTable<S>, draft: S, options: object): void {
  const given = options as Readonly<Record<string, unknown>>;
  for (const [option, row] of Object.entries(table)) {
    const value = given[option];
    if (value === undefined) continue;
    row.check?.(value);
    setOption(table, draft, option, value);
  }
}
