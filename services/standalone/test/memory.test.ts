import { describeBudget, machineMemory, memoryBudget, MIN_MEMORY_LIMIT, parseMemoryLimit } from '../src/memory';

const GIB = 1024 ** 3;

describe('the memory budget (MEMORY_LIMIT)', () => {
  it('reads sizes with units and shares of the machine', () => {
    expect(parseMemoryLimit('4GiB', 64 * GIB)).toBe(4 * GIB);
    expect(parseMemoryLimit('1536MB', 64 * GIB)).toBe(1.536e9);
    expect(parseMemoryLimit(' 2.5 gib ', 64 * GIB)).toBe(2.5 * GIB);
    expect(parseMemoryLimit('40%', 10 * GIB)).toBe(4 * GIB);
  });

  it.each([
    ['lots', /^MEMORY_LIMIT "lots" is not a size such as 4GiB or 1536MB, or a share of the machine such as 40%$/],
    ['4', /is not a size/],
    ['512MiB', /^MEMORY_LIMIT 512MiB is below the least this server runs in, 1GiB$/],
    ['5%', /^MEMORY_LIMIT 5% is below the least/],
  ])('refuses %s, naming it', (text, message) => {
    expect(() => parseMemoryLimit(text, 8 * GIB)).toThrow(message);
  });

  it('takes a quarter of the machine by default, at least 1GiB, and splits it half to DuckDB, 35% to Node, 15% to PGlite', () => {
    const budget = memoryBudget(undefined, 24 * GIB, 4 * GIB);
    expect(budget).toEqual({ limitBytes: 6 * GIB, duckdbBytes: 3 * GIB, nodeBytes: Math.round(6 * GIB * 0.35), pgliteBytes: Math.round(6 * GIB * 0.15), v8HeapLimitBytes: 4 * GIB });
    expect(memoryBudget(undefined, 2 * GIB, GIB).limitBytes).toBe(MIN_MEMORY_LIMIT);
    expect(memoryBudget('2GiB', 24 * GIB, GIB).duckdbBytes).toBe(GIB);
    expect(describeBudget(memoryBudget('2GiB', 24 * GIB, 4 * GIB))).toEqual({
      memory_limit: '2048MiB',
      duckdb_memory_limit: '1024MiB',
      node_share: '717MiB',
      pglite_share: '307MiB',
      v8_heap_limit: '4096MiB',
    });
  });

  it("holds to a container's cgroup limit when it is below the machine's memory, and ignores cgroup v2's 'max'", () => {
    const cgroup = (files: Record<string, string>) => (file: string) => {
      if (!(file in files)) throw new Error('ENOENT');
      return files[file]!;
    };
    expect(machineMemory(cgroup({ '/sys/fs/cgroup/memory.max': `${2 * GIB}\n` }))).toBe(2 * GIB);
    expect(machineMemory(cgroup({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': `${3 * GIB}\n` }))).toBe(3 * GIB);
    const whole = machineMemory(cgroup({}));
    expect(machineMemory(cgroup({ '/sys/fs/cgroup/memory.max': 'max\n', '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712' }))).toBe(whole);
  });
});
