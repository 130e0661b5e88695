import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_BANK_CODE_ROWS, MAX_REPORTED_PROBLEMS, parseBankCodeCsv } from './bank-code-csv.js';

/** The problems of a refused file, one `line n: message` each. */
function problemsOf(text: string): string[] {
  const parsed = parseBankCodeCsv(text);
  assert.equal(parsed.ok, false, 'the file was accepted');
  return parsed.ok ? [] : parsed.problems.map((each) => `line ${each.line}: ${each.message}`);
}

describe('the bank-code file', () => {
  it('reads a good file: header in any case, a BOM, CRLF, blank lines, quotes; BICs to 11 characters', () => {
    const text =
      '\uFEFFCountry,BANK_CODE,Bic\r\nDE,10070000,DEUTDEBB\r\n\r\n' +
      'AT,12000,bkauatww\r\n"GB","NWBK",NWBKGB2LXXX\r\nNL,ABNA,ABNANL2A\r\nFR,30004,BNPAFRPP\r\n' +
      'DE,10070000,DEUTDEBBXXX\r\n';
    assert.deepEqual(parseBankCodeCsv(text), {
      ok: true,
      entries: 5,
      codes: {
        DE: [['10070000', 'DEUTDEBBXXX']],
        AT: [['12000', 'BKAUATWWXXX']],
        GB: [['NWBK', 'NWBKGB2LXXX']],
        NL: [['ABNA', 'ABNANL2AXXX']],
        FR: [['30004', 'BNPAFRPPXXX']],
      },
    });
  });

  it('takes a file without its header line', () => {
    assert.deepEqual(parseBankCodeCsv('DE,10070000,DEUTDEBB\nDE,50040000,COBADEFFXXX'), {
      ok: true,
      entries: 2,
      codes: {
        DE: [
          ['10070000', 'DEUTDEBBXXX'],
          ['50040000', 'COBADEFFXXX'],
        ],
      },
    });
  });

  it('refuses each bad row naming its line and column', () => {
    const text = [
      'country,bank_code,bic',
      'DE,1007000,DEUTDEBB',
      'de,10070000,DEUTDEBB',
      'XX,1234,DEUTDEBB',
      'PL,10201026,BPKOPLPW',
      'DE,10070000,NOTABIC!',
      'GB,nwbk,NWBKGB2L',
      'DE,10070000',
      'DE,10070000,DEUTDEBB',
      'DE,10070000,COBADEFF',
    ].join('\n');
    assert.deepEqual(problemsOf(text), [
      'line 2: column bank_code: "1007000" is not a bank code of DE (8 characters as the IBAN ' +
        'holds them, ^[0-9]{8}$)',
      'line 3: column country: "de" is not an IBAN country code (two upper-case letters)',
      'line 4: column country: "XX" is not an IBAN country code (two upper-case letters)',
      'line 5: column country: IBANs of PL carry no national bank code to route by',
      'line 6: column bic: "NOTABIC!" is not a valid BIC',
      'line 7: column bank_code: "nwbk" is not a bank code of GB (4 characters as the IBAN ' +
        'holds them, ^[A-Z]{4}$)',
      'line 8: 2 columns where country,bank_code,bic are 3',
      'line 10: column bic: DE 10070000 is DEUTDEBBXXX on line 9; one bank code names one BIC',
    ]);
  });

  it('counts every problem but lists the first ones', () => {
    const rows = Array.from({ length: 30 }, (_, index) => `DE,${index},DEUTDEBB`);
    const parsed = parseBankCodeCsv(rows.join('\n'));
    assert.ok(!parsed.ok);
    assert.equal(parsed.total, 30);
    assert.equal(parsed.problems.length, MAX_REPORTED_PROBLEMS);
    assert.equal(parsed.problems.at(-1)?.line, MAX_REPORTED_PROBLEMS);
  });

  it('refuses an empty file, a header alone, an unclosed quote and too many rows', () => {
    const empty = ['line 1: the file holds no bank code (country,bank_code,bic rows)'];
    assert.deepEqual(problemsOf(''), empty);
    assert.deepEqual(problemsOf('\uFEFF\r\n'), empty);
    assert.deepEqual(problemsOf('country,bank_code,bic\r\n'), empty);
    assert.deepEqual(problemsOf('DE,10070000,DEUTDEBB\n"DE,1'), [
      'line 2: not readable as CSV (CSV_QUOTE_NOT_CLOSED)',
    ]);
    const rows = Array.from(
      { length: MAX_BANK_CODE_ROWS + 1 },
      (_, index) => `DE,${String(10_000_000 + index)},DEUTDEBB`,
    );
    assert.deepEqual(problemsOf(rows.join('\n')), [
      `line ${MAX_BANK_CODE_ROWS + 1}: more than ${MAX_BANK_CODE_ROWS} rows: split the file by country`,
    ]);
  });
});
