import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordSplitter, type RecordFormat } from './index.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** Scans the chunks in order; the ends found, as offsets into the whole input, and where it stopped. */
function scanAll(format: RecordFormat, maxBytes: number, chunks: string[]) {
  const splitter = new RecordSplitter(format, maxBytes);
  const ends: number[] = [];
  let offset = 0;
  for (const chunk of chunks) {
    const scanned = splitter.scan(bytes(chunk));
    ends.push(...scanned.ends.map((end) => offset + end));
    if (scanned.tooLongAtLine !== undefined) return { ends, tooLongAtLine: scanned.tooLongAtLine };
    offset += bytes(chunk).length;
  }
  return { ends };
}

describe('record bounds of streamed uploads', () => {
  it('NDJSON: a line of exactly the bound passes, one byte more is refused naming its line', () => {
    const atBound = 'x'.repeat(10);
    assert.deepEqual(scanAll('ndjson', 10, [`${atBound}\n\n${atBound}`]), { ends: [11, 12] });
    assert.deepEqual(scanAll('ndjson', 10, [`${atBound}\n\n${atBound}x\n`]), {
      ends: [11, 12],
      tooLongAtLine: 3,
    });
  });

  it('NDJSON: a line with no line feed at all is refused once the bound is passed, across chunks', () => {
    assert.deepEqual(scanAll('ndjson', 10, ['xxxx', 'xxxx', 'xxxx', 'never read']), {
      ends: [],
      tooLongAtLine: 1,
    });
  });

  it('NDJSON: the bound counts bytes, not characters', () => {
    assert.deepEqual(scanAll('ndjson', 10, ['ééééé\n']), { ends: [11] });
    assert.deepEqual(scanAll('ndjson', 10, ['éééééx\n']), { ends: [], tooLongAtLine: 1 });
  });

  it('CSV: a line feed inside quotes stays in its record; the record is named by its first line', () => {
    const csv = 'id,name\n1,"two\nlines"\n2,x\n';
    assert.deepEqual(scanAll('csv', 20, [csv]), { ends: [8, 22, 26] });
    assert.deepEqual(scanAll('csv', 10, ['id,name\n1,"a\n""b""\nccccccc"\n']), {
      ends: [8],
      tooLongAtLine: 2,
    });
  });

  it('CSV: a record of nothing but separators is bounded too (csv-parse counts only field contents)', () => {
    assert.deepEqual(scanAll('csv', 100, ['id,iban,name\n', ','.repeat(101)]), {
      ends: [13],
      tooLongAtLine: 2,
    });
  });
});
