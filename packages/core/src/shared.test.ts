import { shared } from './shared';

describe('shared', () => {
  it('gives every caller asking while the work runs the same promise, and starts anew once it settled', async () => {
    const running = new Map<string, Promise<number>>();
    let started = 0;
    let finish!: (value: number) => void;
    const start = () => {
      started += 1;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const first = shared(running, 'k', start);
    const second = shared(running, 'k', start);
    expect(second).toBe(first);
    expect(started).toBe(1);
    finish(7);
    await expect(first).resolves.toBe(7);
    expect(running.size).toBe(0);
    const third = shared(running, 'k', start);
    expect(third).not.toBe(first);
    expect(started).toBe(2);
    finish(8);
    await expect(third).resolves.toBe(8);
  });

  it('frees the key after a failure, so the next caller tries again', async () => {
    const running = new Map<string, Promise<number>>();
    await expect(shared(running, 'k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(running.size).toBe(0);
    await expect(shared(running, 'k', () => Promise.resolve(1))).resolves.toBe(1);
  });
});
