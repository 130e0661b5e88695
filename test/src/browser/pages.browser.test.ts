import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DEV_PKCS12_PASSWORD } from '@vop/pki';
import { eventually } from '@vop/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { runEmbedded, schemeRequest, type RunningEmbedded } from '../embedded/fixtures.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Debian's chromium, installed by infra/local/chromium.sh (the full test run calls it). */
function chromiumPath(): string {
  return (
    process.env.VOP_CHROMIUM_PATH ??
    execFileSync('bash', [path.join(repoRoot, 'infra/local/chromium.sh'), 'path'], {
      encoding: 'utf8',
    }).trim()
  );
}

/**
 * Issue 10, item 4: the pages in real headless Chromium over the mutual-TLS edge, the browser
 * presenting the development PKI's PKCS#12 files.
 */
describe('pages in headless Chromium over mutual TLS', () => {
  let running: RunningEmbedded;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];

  async function pageAs(who: 'admin' | 'participant'): Promise<Page> {
    const pki = running.service.pki;
    const pfxPath = who === 'admin' ? pki.adminP12Path : pki.clientP12Path;
    assert.ok(pfxPath, 'the development PKI wrote the PKCS#12 files');
    const context = await browser.newContext({
      ignoreHTTPSErrors: true, // the development CA is not in Chromium's trust store
      clientCertificates: [
        { origin: new URL(running.service.url).origin, pfxPath, passphrase: DEV_PKCS12_PASSWORD },
      ],
    });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
    return page;
  }

  const url = (pathname: string) => new URL(pathname, running.service.url).toString();
  const text = async (page: Page, selector: string) =>
    ((await page.textContent(selector)) ?? '').trim();

  before(async () => {
    running = await runEmbedded();
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true });
    const imported = await running.admin.post('/admin/import-test-data', {});
    assert.equal(imported.status, 200, imported.text);
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await running?.stop();
  });

  it('shows the dashboard to the admin; its figures and charts move after verifications', async () => {
    const page = await pageAs('admin');
    const response = await page.goto(url('/admin'));
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.waitForSelector('body[data-refreshes]');
    assert.equal(await text(page, '#version'), '0.1.0');
    const totalBefore = Number(await text(page, '#total'));
    const chartBefore = Number(await page.getAttribute('#usage-chart', 'data-total'));

    await eventually(
      async () => {
        const answer = await running.client.post(
          '/vop/verify',
          schemeRequest('Erika Mustermann', 'DE87500105170009900001'),
        );
        return answer.body.partyNameMatch === 'MTCH' ? true : undefined;
      },
      { what: 'the reference accounts reach matching' },
    );
    await running.client.post('/vop/verify', schemeRequest('Max Power', 'DE87500105170009900001'));
    // The figures are a read model fed by the bus: they catch up after the answers, not with them.
    await eventually(
      async () =>
        (await running.admin.get('/admin/stats')).body.requests.total >= totalBefore + 2
          ? true
          : undefined,
      { timeoutMs: 15_000, what: 'the statistics count both verifications' },
    );
    const recentRows = () =>
      page.$$eval('#recent tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    await eventually(
      async () => {
        await page.click('#refresh');
        await page.waitForTimeout(200);
        const moved =
          Number(await text(page, '#total')) >= totalBefore + 2 &&
          Number(await page.getAttribute('#usage-chart', 'data-total')) >= chartBefore + 2 &&
          Number(await page.getAttribute('#outcomes-chart', 'data-total')) >= 2 &&
          (await recentRows()).some((row) => row.includes('M** P****') && row.includes('NMTC'));
        return moved ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 300, what: 'the dashboard figures, charts and rows move' },
    );
    const rows = await recentRows();
    assert.ok(rows.every((row) => !row.includes('DE87500105170009900001')));
    assert.equal(await text(page, '#error'), '');
  });

  it('shows /admin/stats as a page to a browser, JSON to an API client', async () => {
    const page = await pageAs('admin');
    const response = await page.goto(url('/admin/stats'));
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-type'] ?? '', /text\/html/);
    await page.waitForSelector('body[data-loaded="today"]');
    assert.ok(Number(await text(page, '#total')) >= 2);
    assert.match(await text(page, '#average'), /^\d+ ms$/);
    await page.selectOption('#period', 'month');
    await page.waitForSelector('body[data-loaded="month"]');
    const json = await running.admin.get('/admin/stats');
    assert.match(String(json.headers['content-type']), /application\/json/);
  });

  it('lets a participant test a name on /test and shows the outcome at once', async () => {
    const page = await pageAs('participant');
    const response = await page.goto(url('/test'));
    assert.equal(response?.status(), 200);
    await page.fill('#iban', 'DE87 5001 0517 0009 9000 01');
    await page.fill('#name', 'Erika Musterman');
    await page.click('#verify');
    await page.waitForSelector('#result:not([hidden])');
    assert.equal(await text(page, '#outcome'), 'CMTC');
    assert.equal(await text(page, '#matched-name'), 'Erika Mustermann');
    await page.fill('#name', 'Max Power');
    await page.click('#verify');
    await page.locator('#outcome', { hasText: 'NMTC' }).waitFor();
    assert.equal(await page.isHidden('#matched-name-line'), true);
  });

  it('refuses the dashboard to a participant certificate, as a page', async () => {
    const page = await pageAs('participant');
    for (const pathname of ['/admin', '/admin/stats']) {
      const response = await page.goto(url(pathname));
      assert.equal(response?.status(), 403, pathname);
      assert.match(response?.headers()['content-type'] ?? '', /text\/html/, pathname);
      assert.match(await text(page, 'h1'), /^403 ACCESS_DENIED$/, pathname);
    }
    // An API client asking the same is answered JSON, as before.
    const json = await running.client.get('/admin');
    assert.equal(json.status, 403);
    assert.equal(json.body.error, 'ACCESS_DENIED');
  });

  // Issue 43, item 5: every link on a page leads somewhere its viewer may go, or is not shown.
  it('links each page only where its viewer may go', async () => {
    const linksOf = (page: Page) =>
      page.$$eval('a[href]', (anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    const seen: Record<string, Array<string | null>> = {};
    for (const [who, start] of [
      ['admin', '/admin'],
      ['admin', '/admin/stats'],
      ['participant', '/test'],
    ] as const) {
      const page = await pageAs(who);
      const response = await page.goto(url(start));
      assert.equal(response?.status(), 200, `${who} ${start}`);
      const links = await linksOf(page);
      seen[`${who} ${start}`] = links;
      for (const href of links) {
        const followed = await page.goto(url(String(href)));
        assert.equal(followed?.status(), 200, `${who}: ${start} links ${href}`);
        await page.goto(url(start));
      }
    }
    assert.deepEqual(seen, {
      'admin /admin': ['/admin/stats', '/docs'],
      'admin /admin/stats': ['/admin', '/docs'],
      'participant /test': ['/docs'],
    });
  });

  it('refuses the test page to the admin certificate, which is no scheme participant, as a page', async () => {
    const page = await pageAs('admin');
    const response = await page.goto(url('/test'));
    assert.equal(response?.status(), 403);
    assert.match(response?.headers()['content-type'] ?? '', /text\/html/);
    assert.match(await text(page, '#refusal-message'), /scheme participant/);
  });

  it('shows the figures of /admin/stats as a chart too', async () => {
    const page = await pageAs('admin');
    await page.goto(url('/admin/stats'));
    await page.waitForSelector('body[data-loaded="today"]');
    const shown = Number(await text(page, '#successful')) + Number(await text(page, '#failed'));
    assert.ok(shown >= 2);
    assert.equal(Number(await page.getAttribute('#stats-chart', 'data-total')), shown);
    // The canvas's painted pixels, read in the page (this project compiles without the DOM's types).
    const drawn = Number(
      await page.evaluate(`(() => {
        const canvas = document.getElementById('stats-chart');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let index = 3; index < pixels.length; index += 4) if (pixels[index] > 0) painted++;
        return painted;
      })()`),
    );
    assert.ok(drawn > 0, 'the chart drew something');
  });

  it('groups the API documentation by route family', async () => {
    const page = await pageAs('participant');
    const response = await page.goto(url('/docs'));
    assert.equal(response?.status(), 200);
    await page.waitForSelector('.opblock-tag-section');
    const tags = await page.$$eval('.opblock-tag-section h3', (headings) =>
      headings.map((heading) => heading.getAttribute('data-tag')),
    );
    assert.ok(tags.includes('scheme') && tags.includes('test-toolkit'), JSON.stringify(tags));
    assert.ok(!tags.includes('default'), JSON.stringify(tags));
    assert.ok(tags.length >= 10, JSON.stringify(tags));
  });

  it('ran every page without a Content-Security-Policy violation or script error', () => {
    assert.deepEqual(cspViolations, []);
  });
});
