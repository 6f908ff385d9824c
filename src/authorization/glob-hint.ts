/**
 * A hint when a regex source reads as a Spring path pattern: `/*` at the end of a
 * segment (a regex "zero or more slashes"), `**`, `{name}` or `{*rest}`.
 *
 * @internal
 */
export function globHint(source: string): string | undefined {
  const plain = source.replaceAll('\\/', '/');
  const star = /\/\*(?=$|[/|)])/u.exec(plain);
  const braces = /\{\*?[A-Za-z_$][A-Za-z0-9_$]*(?::[^}]*)?\}/u.exec(plain);
  if (star === null && !plain.includes('**') && braces === null) return undefined;
  const what = plain.includes('**')
    ? '"**"'
    : star !== null
      ? '"/*" at the end of a segment'
      : `"${braces?.[0] ?? ''}"`;
  return (
    `looks like a path pattern (${what}), but addMatcher takes a regular expression, in ` +
    'which "/*" means "zero or more slashes" (so "/admin/*" leaves "/admin/users" open). ' +
    'Use requestMatchers() with a path pattern ("/admin/**", "/admin/*", "/users/{id}"), ' +
    'or write the regex in full ("/admin/.*")'
  );
}
