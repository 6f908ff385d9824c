/**
 * The variables a URL path pattern captured for one request (`/users/{id}` on
 * `/users/42` → `{ id: '42' }`), read by `path.<name>` references. A class, so that
 * `args.*` references never read it (they only walk plain objects) and `path.*`
 * references never read a tRPC input or GraphQL arguments (they only read this).
 *
 * @internal
 */
export class PathVariables {
  /** The captured values by variable name (a frozen null-prototype record). */
  readonly values: Readonly<Record<string, string>>;

  constructor(values: Readonly<Record<string, string>>) {
    this.values = values;
    Object.freeze(this);
  }

  /** The value of a variable, `undefined` when the pattern did not capture it. */
  get(name: string): string | undefined {
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }
}
