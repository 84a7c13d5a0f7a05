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
  it('packs named text files that unzip to the same text', async () => {
    const zip = await toZip({ 'a.jsonl': jsonLines([{ x: 1 }, { x: 2 }]), 'b.json': '{}' });
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files).sort()).toEqual(['a.jsonl', 'b.json']);
    expect(strFromU8(files['a.jsonl']!)).toBe('{"x":1}\n{"x":2}');
  });

  it('packs bytes as they are beside text', async () => {
    const bytes = new Uint8Array([0x1f, 0x8b, 0, 0xff, 0xfe, 10, 13]);
    const files = unzipSync(new Uint8Array(await toZip({ 'replays/s-1/0.json.gz': bytes, 'caf\u00e9.txt': 'caf\u00e9' })));
    expect(Object.keys(files).sort()).toEqual(['caf\u00e9.txt', 'replays/s-1/0.json.gz']);
    expect(files['replays/s-1/0.json.gz']).toEqual(bytes);
    expect(strFromU8(files['caf\u00e9.txt']!)).toBe('caf\u00e9');
  });

  it('packs files larger than a piece, and empty ones, whole, letting timers run while it packs', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 5).map((_, index) => index % 251);
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 0);
    const zip = await toZip({ 'big.bin': big, 'empty.bin': new Uint8Array(0), 'empty.txt': '', 'text.jsonl': 'x'.repeat(2 * 1024 * 1024) });
    clearInterval(timer);
    const files = unzipSync(new Uint8Array(zip));
    // Compared as buffers: jest's deep equality walks a typed array element by element.
    expect(Buffer.compare(Buffer.from(files['big.bin']!), Buffer.from(big))).toBe(0);
    expect(files['empty.bin']).toEqual(new Uint8Array(0));
    expect(strFromU8(files['empty.txt']!)).toBe('');
    expect(strFromU8(files['text.jsonl']!) === 'x'.repeat(2 * 1024 * 1024)).toBe(true);
    // The timer ran between pieces: the archive was not built in one turn of the event loop.
    expect(turns).toBeGreaterThan(2);
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
