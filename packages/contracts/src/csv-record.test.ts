import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchResultCsvRecord, batchResultsCsvHeader, csvCell, csvRecord } from './index.js';

describe('CSV cells (OWASP CSV injection)', () => {
  it('a cell that begins with = + - @ a tab or a carriage return is written quoted, a quote before it', () => {
    const attacks: [string, string][] = [
      ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
      ['+41 cmd', `"'+41 cmd"`],
      ["-2+3+cmd|' /C calc'!A0", `"'-2+3+cmd|' /C calc'!A0"`],
      ['@SUM(1+1)', `"'@SUM(1+1)"`],
      ['\t=1+1', `"'\t=1+1"`],
      ['\r=1+1', `"'\r=1+1"`],
    ];
    for (const [typed, written] of attacks) assert.equal(csvCell(typed), written, typed);
  });

  it('other cells are written as RFC 4180 says: plain, or quoted with quotes doubled', () => {
    assert.equal(csvCell('Erika Mustermann'), 'Erika Mustermann');
    assert.equal(csvCell('Mustermann, Erika'), '"Mustermann, Erika"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('a=b'), 'a=b');
    assert.equal(csvCell(" '=already"), " '=already");
    assert.equal(csvCell(''), '');
    assert.equal(csvCell(undefined), '');
  });

  it('a record is its cells joined by commas and ended by a line feed', () => {
    assert.equal(csvRecord(['=1', undefined, 'x,y']), `"'=1",,"x,y"\n`);
  });

  it('a batch result is written in the documented columns, id and matchedName neutralised', () => {
    assert.equal(batchResultsCsvHeader(), 'id,result,confidence,reason,matchedName\n');
    assert.equal(
      batchResultCsvRecord({
        id: '@id',
        result: 'PARTIAL_MATCH',
        confidence: 'MEDIUM',
        matchedName: '=cmd|"/c calc"!A1',
      }),
      `"'@id",PARTIAL_MATCH,MEDIUM,,"'=cmd|""/c calc""!A1"\n`,
    );
  });
});
