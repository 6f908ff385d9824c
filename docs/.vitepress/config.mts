import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme, type MarkdownRenderer } from 'vitepress';

/**
 * The line that ends a code block's hidden part, as twoslash spells it: the lines before it
 * are compiled by the snippet check (docs/check-snippets.mjs) but never shown.
 */
const CUT = /^[ \t]*\/\/ ---cut---[ \t]*\r?\n/mu;

/**
 * Hides what a TypeScript block holds above its `// ---cut---` line and drops the
 * `no-check` and `expect-error` flags from its info string, before any fence is rendered or indexed for search.
 */
function snippetConventions(md: MarkdownRenderer): void {
  md.core.ruler.push('portcullis-snippets', (state) => {
    for (const token of state.tokens) {
      if (token.type !== 'fence') continue;
      const [lang = '', ...rest] = token.info.trim().split(/\s+/u);
      if (lang !== 'ts' && lang !== 'typescript') continue;
      token.info = [
        lang,
        ...rest.filter((word) => word !== 'no-check' && word !== 'expect-error'),
      ].join(' ');
      const cut = CUT.exec(token.content);
      if (cut) token.content = token.content.slice(cut.index + cut[0].length);
    }
  });
}

/** The API reference's sidebar, as TypeDoc (docs:api) writes it; none before its first run. */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[];
}

const guidesLinks: DefaultTheme.NavItemWithLink[] = [
  { text: 'node http, Express, Connect', link: '/guides/node' },
  { text: 'Fastify', link: '/guides/fastify' },
  { text: 'Fetch API, Hono', link: '/guides/fetch' },
  { text: 'Next.js route handlers', link: '/guides/nextjs' },
  { text: 'tRPC', link: '/guides/trpc' },
  { text: 'GraphQL directives, graphql-http', link: '/guides/graphql' },
  { text: 'GraphQL Yoga', link: '/guides/yoga' },
  { text: 'Apollo Server', link: '/guides/apollo' },
  { text: 'NestJS', link: '/guides/nestjs' },
  { text: 'Testing (portcullis/testing)', link: '/guides/testing' },
  { text: 'Why was I refused? (debugging)', link: '/guides/debugging' },
];

const mechanismsLinks: DefaultTheme.NavItemWithLink[] = [
  { text: 'The pipeline', link: '/mechanisms/pipeline' },
  { text: 'Users and HTTP Basic', link: '/mechanisms/basic' },
  { text: 'Password encoders', link: '/mechanisms/passwords' },
  { text: 'JWT bearer tokens', link: '/mechanisms/jwt' },
  { text: 'Sessions, form login, CSRF', link: '/mechanisms/sessions' },
  { text: 'OAuth2 / OpenID Connect', link: '/mechanisms/oauth2' },
  { text: 'Security expressions', link: '/mechanisms/expressions' },
  { text: 'URL rules, firewall, CORS', link: '/mechanisms/url-rules' },
  { text: 'Security headers', link: '/mechanisms/headers' },
  { text: 'Stores and Redis', link: '/mechanisms/stores' },
  { text: 'Login throttling', link: '/mechanisms/throttling' },
];

const referenceLinks: DefaultTheme.NavItemWithLink[] = [
  { text: 'Errors', link: '/reference/errors' },
  { text: 'Security events', link: '/reference/events' },
  { text: 'SecurityContext', link: '/reference/security-context' },
  { text: 'The portcullis command', link: '/reference/cli' },
  { text: 'API (TypeDoc)', link: '/api/' },
];

const start: DefaultTheme.SidebarItem = {
  text: 'Introduction',
  items: [
    { text: 'Getting started', link: '/getting-started' },
    { text: 'Installation and supported versions', link: '/installation' },
    { text: 'The example server', link: '/example' },
    { text: 'Coming from Spring Security', link: '/coming-from-spring' },
    {
      text: 'Coming from graphql-shield, express-jwt, helmet',
      link: '/coming-from-express-libraries',
    },
    { text: 'Security model', link: '/security-model' },
    { text: 'Deployment', link: '/deployment' },
    { text: 'Development and benchmarks', link: '/development' },
  ],
};

const site: DefaultTheme.SidebarItem[] = [
  start,
  { text: 'Integrations', items: guidesLinks },
  { text: 'Mechanisms', items: mechanismsLinks },
  { text: 'Reference', items: referenceLinks },
];

export default defineConfig({
  title: 'portcullis',
  description:
    'Authentication and authorization for TypeScript servers: one security-expression language for URL rules, tRPC and GraphQL.',
  cleanUrls: true,
  lastUpdated: false,
  // A README in a folder of docs/ would describe the folder; it is not a page.
  srcExclude: ['**/README.md'],
  markdown: {
    config: (md) => {
      md.use(snippetConventions);
    },
  },
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Guides', items: guidesLinks },
      { text: 'Mechanisms', items: mechanismsLinks },
      { text: 'Reference', items: referenceLinks },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar() }],
      '/': site,
    },
    search: { provider: 'local' },
    outline: [2, 3],
  },
});
