import type { Principal } from '@vop/http';

export interface PageLink {
  href: string;
  text: string;
}

/** The placeholder each page's <nav> holds until it is served. */
export const NAVIGATION_SLOT = '<!-- the links this viewer may open (page-navigation.ts) -->';

/**
 * The links a viewer may follow, the page being shown left out: the dashboard and statistics for the
 * admin certificate; the test page, which checks payees as a participant's customer, for a
 * participant's certificate in a test deployment; the API documentation for anyone.
 */
export function navigationFor(
  principal: Principal | undefined,
  options: { testPage: boolean; current: string },
): PageLink[] {
  const admin = principal?.kind === 'certificate' && principal.admin;
  const participant = principal?.kind === 'certificate' && !principal.admin;
  const links: PageLink[] = [
    ...(admin
      ? [
          { href: '/admin', text: 'Dashboard' },
          { href: '/admin/stats', text: 'Statistics' },
        ]
      : []),
    ...(participant && options.testPage ? [{ href: '/test', text: 'Test a name' }] : []),
    { href: '/docs', text: 'API documentation' },
  ];
  return links.filter((link) => link.href !== options.current);
}

/** The links as the <nav>'s content; hrefs and texts are the fixed ones above. */
export function navigationHtml(links: readonly PageLink[]): string {
  return links.map((link) => `<a href="${link.href}">${link.text}</a>`).join(' · ');
}
