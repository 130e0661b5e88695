import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DEV_PKCS12_PASSWORD } from '@vop/pki';
import { eventually, germanIban, type ScriptedResponder } from '@vop/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { runEmbedded, schemeRequest, type RunningEmbedded } from '../embedded/fixtures.js';
import {
  BANK_B,
  OWN_CODE,
  OWN_HOLDER,
  UNLISTED_CODE,
  bankAWithBankB,
  payeeAtB,
} from '../embedded/payee-bank-fixture.js';

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

/** Browser contexts presenting a deployment's development PKCS#12 files; CSP violations collected. */
function browserSession(browser: Browser, running: RunningEmbedded) {
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];
  return {
    cspViolations,
    async pageAs(who: 'admin' | 'participant'): Promise<Page> {
      const pki = running.service.pki;
      const pfxPath = who === 'admin' ? pki.adminP12Path : pki.clientP12Path;
      assert.ok(pfxPath, 'the development PKI wrote the PKCS#12 files');
      const context = await browser.newContext({
        ignoreHTTPSErrors: true, // the development CA is not in Chromium's trust store
        clientCertificates: [
          {
            origin: new URL(running.service.url).origin,
            pfxPath,
            passphrase: DEV_PKCS12_PASSWORD,
          },
        ],
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
      return page;
    },
    async close(): Promise<void> {
      for (const context of contexts) await context.close();
    },
  };
}

const text = async (page: Page, selector: string) =>
  ((await page.textContent(selector)) ?? '').trim();

/** What the /test page shows after one check. */
interface TestPageAnswer {
  outcome: string;
  advice: string;
  /** Empty when the page shows no reason. */
  reason: string;
  /** Empty when the page shows no name. */
  matchedName: string;
  /** here, payee-bank, failed or unknown: who gave the outcome, as the page found it. */
  origin: string | null;
  payeeBank: string;
  verificationId: string;
}

/** Fills the /test form, submits it, and reads what the page shows once the check is done. */
async function checkOnTestPage(
  page: Page,
  fields: { iban: string; name: string; bic?: string },
): Promise<TestPageAnswer> {
  await page.fill('#iban', fields.iban);
  await page.fill('#name', fields.name);
  await page.fill('#payee-bic', fields.bic ?? '');
  // The button is disabled from the click until the page has shown the answer or the error.
  await page.click('#verify');
  await page.waitForSelector('#verify:not([disabled])');
  assert.equal(await text(page, '#error'), '');
  assert.equal(await page.isVisible('#result'), true);
  const shown = async (line: string, selector: string) =>
    (await page.isVisible(line)) ? text(page, selector) : '';
  return {
    outcome: await text(page, '#outcome'),
    advice: await text(page, '#advice'),
    reason: await shown('#reason-line', '#reason'),
    matchedName: await shown('#matched-name-line', '#matched-name'),
    origin: await page.getAttribute('#result', 'data-origin'),
    payeeBank: await text(page, '#payee-bank'),
    verificationId: await text(page, '#verification-id'),
  };
}

/**
 * Issue 10, item 4: the pages in real headless Chromium over the mutual-TLS edge, the browser
 * presenting the development PKI's PKCS#12 files.
 */
describe('pages in headless Chromium over mutual TLS', () => {
  let running: RunningEmbedded;
  let browser: Browser;
  let session: ReturnType<typeof browserSession>;
  const pageAs = (who: 'admin' | 'participant') => session.pageAs(who);

  const url = (pathname: string) => new URL(pathname, running.service.url).toString();

  before(async () => {
    running = await runEmbedded();
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true });
    session = browserSession(browser, running);
    const imported = await running.admin.post('/admin/import-test-data', {});
    assert.equal(imported.status, 200, imported.text);
  });

  after(async () => {
    await session?.close();
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

  it('lets a participant test a name on /test: a payee at this bank is checked here, the outcome shown at once', async () => {
    const page = await pageAs('participant');
    const response = await page.goto(url('/test'));
    assert.equal(response?.status(), 200);
    const close = await checkOnTestPage(page, {
      iban: 'DE87 5001 0517 0009 9000 01',
      name: 'Erika Musterman',
    });
    assert.equal(close.outcome, 'PARTIAL_MATCH');
    assert.equal(close.matchedName, 'Erika Mustermann');
    assert.equal(close.origin, 'here');
    assert.equal(close.payeeBank, 'Checked by this bank against its own accounts.');
    // The verification is the simple family's, readable by its id.
    const read = await running.client.get(`/verify/${close.verificationId}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.name_match_code, 'PARTIAL');
    const none = await checkOnTestPage(page, {
      iban: 'DE87 5001 0517 0009 9000 01',
      name: 'Max Power',
    });
    assert.equal(none.outcome, 'NO_MATCH');
    assert.equal(none.advice, 'The name does not match the account holder.');
    assert.equal(none.matchedName, '');
    assert.notEqual(none.verificationId, close.verificationId);
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
    assert.deepEqual(session.cspViolations, []);
  });
});

/**
 * Issue 40: the /test page checks a payee as the bank's own customers do, at any bank. Bank A is an
 * embedded deployment whose directory lists bank B, a scripted EPC responder on 127.0.0.1.
 */
describe('the /test page checks payees at any bank, in headless Chromium', () => {
  let running: RunningEmbedded;
  let bankB: ScriptedResponder;
  let browser: Browser;
  let session: ReturnType<typeof browserSession>;
  let page: Page;
  const ownIban = germanIban(4244, OWN_CODE);

  before(async () => {
    // Each failure is shown on its own: an open breaker would answer the later ones.
    ({ running, bankB } = await bankAWithBankB(
      { VOP_REQUESTER_BREAKER_FAILURES: '1000', VOP_REQUESTER_BREAKER_MIN_CALLS: '1000' },
      ownIban,
    ));
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true });
    session = browserSession(browser, running);
    page = await session.pageAs('participant');
    const response = await page.goto(new URL('/test', running.service.url).toString());
    assert.equal(response?.status(), 200);
  });

  after(async () => {
    await session?.close();
    await browser?.close();
    await bankB?.close();
    await running?.stop();
  });

  it('given a payee at our own bank, then the page shows the match decided here and bank B is not asked', async () => {
    bankB.clearRequests();
    const shown = await checkOnTestPage(page, { iban: ownIban, name: OWN_HOLDER });
    assert.equal(shown.outcome, 'MATCH');
    assert.equal(shown.advice, 'The name matches the account holder: proceed.');
    assert.equal(shown.reason, '');
    assert.equal(shown.origin, 'here');
    assert.equal(shown.payeeBank, 'Checked by this bank against its own accounts.');
    assert.equal(bankB.requests().length, 0);
  });

  it('given a payee whose IBAN has bank B’s code, then bank B is asked and the page shows its answer as the payee’s bank’s', async () => {
    bankB.clearRequests();
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'CMTC', matchedName: 'Erika Muster' } });
    const iban = payeeAtB(1);
    const shown = await checkOnTestPage(page, { iban, name: 'Erika Mustermann' });
    assert.equal(shown.outcome, 'PARTIAL_MATCH');
    assert.equal(shown.matchedName, 'Erika Muster');
    assert.equal(shown.origin, 'payee-bank');
    assert.equal(
      shown.payeeBank,
      `Answered by the payee's bank (${BANK_B.bic}), found from the IBAN's bank code.`,
    );
    assert.equal(bankB.requests().length, 1);
    assert.deepEqual(bankB.requests()[0]?.body, {
      party: { name: 'Erika Mustermann' },
      partyAccount: { iban },
      partyAgent: { financialInstitutionId: { bicfi: BANK_B.bic } },
      requestingAgent: { financialInstitutionId: { bicfi: 'VOPBDEFFXXX' } },
    });
  });

  it('given the payer names bank B’s BIC, then that bank is asked whatever the IBAN’s bank code, and the page names it', async () => {
    bankB.clearRequests();
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'MTCH' } });
    const shown = await checkOnTestPage(page, {
      iban: germanIban(2, UNLISTED_CODE),
      name: 'Erika Mustermann',
      bic: BANK_B.bic.toLowerCase(),
    });
    assert.equal(shown.outcome, 'MATCH');
    assert.equal(shown.origin, 'payee-bank');
    assert.equal(shown.payeeBank, `Answered by the payee's bank (${BANK_B.bic}).`);
    assert.equal(bankB.requests().length, 1);
  });

  it('given no check is possible, then the page says whose answer that is: bank B’s NOAP, or no account of ours', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'NOAP' } });
    const theirs = await checkOnTestPage(page, { iban: payeeAtB(5), name: 'Erika Mustermann' });
    assert.equal(theirs.outcome, 'ERROR');
    assert.equal(theirs.reason, 'ACCOUNT_NOT_FOUND_OR_CLOSED');
    assert.equal(theirs.origin, 'payee-bank');
    assert.match(theirs.advice, /^No check possible: the payee's bank answered/);
    const ours = await checkOnTestPage(page, {
      iban: germanIban(4245, OWN_CODE),
      name: 'Erika Mustermann',
    });
    assert.equal(ours.outcome, 'ERROR');
    assert.equal(ours.reason, 'ACCOUNT_NOT_FOUND_OR_CLOSED');
    assert.equal(ours.origin, 'here');
    assert.equal(ours.advice, 'No check possible: the account is unknown or closed.');
  });

  it('given bank B does not answer in time, then the page says the name could not be checked, not that it does not match', async () => {
    bankB.clearRequests();
    bankB.script({ kind: 'slow', afterMs: 8_000, body: {} });
    const shown = await checkOnTestPage(page, { iban: payeeAtB(3), name: 'Erika Mustermann' });
    assert.equal(shown.outcome, 'ERROR');
    assert.equal(shown.reason, 'RESPONDER_TIMEOUT');
    assert.equal(
      shown.advice,
      "The payee's bank did not answer in time: the name could not be checked. Do not read this as a mismatch.",
    );
    assert.equal(shown.origin, 'failed');
    assert.equal(shown.payeeBank, `Asked the payee's bank (${BANK_B.bic}): it could not answer.`);
    assert.equal(bankB.requests().length, 1);
  });

  it('given an IBAN whose bank code no bank holds, then the page says the payee’s bank could not be found and no bank was asked', async () => {
    bankB.clearRequests();
    const shown = await checkOnTestPage(page, {
      iban: germanIban(4, UNLISTED_CODE),
      name: 'Erika Mustermann',
    });
    assert.equal(shown.outcome, 'ERROR');
    assert.equal(shown.reason, 'RESPONDER_UNKNOWN');
    assert.match(shown.advice, /^The payee's bank could not be found/);
    assert.equal(shown.payeeBank, 'No bank was asked.');
    assert.equal(bankB.requests().length, 0);
  });

  it('ran the page without a Content-Security-Policy violation or script error', () => {
    assert.deepEqual(session.cspViolations, []);
  });
});
