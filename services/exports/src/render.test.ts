import { unzipSync, strFromU8 } from 'fflate';
import { signDownload, verifyDownload } from './signing';
import { jsonLines, toCsv, toZip } from './render';

describe('toCsv', () => {
  it('writes a header of every column in first-seen order and quotes per RFC 4180', () => {
    const csv = toCsv([
      { message: 'plain', count: 1 },
      { message: 'has, comma and "quotes"\nand a line', properties: { route: '/a' }, count: null },
    ]);
    expect(csv).toBe('message,count,properties\r\nplain,1,\r\n"has, comma and ""quotes""\nand a line",,"{""route"":""/a""}"\r\n');
  });

  it('is only a header line for no rows', () => {
    expect(toCsv([])).toBe('\r\n');
  });
});

describe('toZip', () => {
  it('packs named text files that unzip to the same text', () => {
    const zip = toZip({ 'a.jsonl': jsonLines([{ x: 1 }, { x: 2 }]), 'b.json': '{}' });
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files).sort()).toEqual(['a.jsonl', 'b.json']);
    expect(strFromU8(files['a.jsonl']!)).toBe('{"x":1}\n{"x":2}');
  });

  it('packs bytes as they are beside text', () => {
    const bytes = new Uint8Array([0x1f, 0x8b, 0, 0xff, 0xfe, 10, 13]);
    const files = unzipSync(new Uint8Array(toZip({ 'replays/s-1/0.json.gz': bytes, 'caf\u00e9.txt': 'caf\u00e9' })));
    expect(Object.keys(files).sort()).toEqual(['caf\u00e9.txt', 'replays/s-1/0.json.gz']);
    expect(files['replays/s-1/0.json.gz']).toEqual(bytes);
    expect(strFromU8(files['caf\u00e9.txt']!)).toBe('caf\u00e9');
  });
});

describe('download links', () => {
  const secret = 'a-signing-secret-of-at-least-32-chars';
  it('verify for the same job before expiry only', () => {
    const token = signDownload(secret, 'job-1', Date.now() + 60_000);
    expect(verifyDownload(secret, 'job-1', token)).toBe(true);
    expect(verifyDownload(secret, 'job-2', token)).toBe(false);
    expect(verifyDownload('another-secret-of-at-least-32-chars!!', 'job-1', token)).toBe(false);
    expect(verifyDownload(secret, 'job-1', signDownload(secret, 'job-1', Date.now() - 1))).toBe(false);
    expect(verifyDownload(secret, 'job-1', `${Date.now() + 60_000}.forged`)).toBe(false);
    expect(verifyDownload(secret, 'job-1', 'garbage')).toBe(false);
  });
});
