import { EmbeddedBus } from './embedded';
import { Topics } from './topics';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Observes whether a promise has settled without waiting for it. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false, outcome: undefined as 'resolved' | 'rejected' | undefined, error: undefined as unknown };
  promise.then(
    () => Object.assign(state, { settled: true, outcome: 'resolved' }),
    (error: unknown) => Object.assign(state, { settled: true, outcome: 'rejected', error }),
  );
  return state;
}

/** Lets every queued microtask and timer of this turn run. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

const message = (value: number) => ({ key: 'project-1', value });

let bus: EmbeddedBus;

beforeEach(() => {
  bus = new EmbeddedBus();
});
afterEach(() => bus.close());

describe('EmbeddedBus.publish', () => {
  it('resolves only after the handler has finished with the batch, which is never delivered again (no positions)', async () => {
    expect(bus.redelivers).toBe(false);
    const release = deferred();
    const calls: number[][] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values, positions) => {
      calls.push(values);
      expect(positions).toBeUndefined();
      await release.promise;
    });
    const publish = track(bus.publish(Topics.logs, [message(1), message(2)]));
    await tick();
    expect(calls).toEqual([[1, 2]]);
    expect(publish.settled).toBe(false);
    release.resolve();
    await tick();
    expect(publish.outcome).toBe('resolved');
  });

  it('hands publishes that arrive while the handler runs to the next call together (group commit)', async () => {
    const firstCall = deferred();
    const calls: number[][] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values) => {
      calls.push(values);
      if (calls.length === 1) await firstCall.promise;
    });
    const first = bus.publish(Topics.logs, [message(1)]);
    await tick();
    const second = bus.publish(Topics.logs, [message(2), message(3)]);
    const third = bus.publish(Topics.logs, [message(4)]);
    await tick();
    expect(calls).toEqual([[1]]);
    firstCall.resolve();
    await Promise.all([first, second, third]);
    expect(calls).toEqual([[1], [2, 3, 4]]);
  });

  it('runs up to `concurrency` handler calls at once, each resolving its own publishes, and groups the rest', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const calls: number[][] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer', concurrency: 2 }, async (values) => {
      const call = calls.push(values) - 1;
      await gates[call]!.promise;
    });
    const first = track(bus.publish(Topics.logs, [message(1)]));
    const second = track(bus.publish(Topics.logs, [message(2)]));
    const third = track(bus.publish(Topics.logs, [message(3)]));
    const fourth = track(bus.publish(Topics.logs, [message(4)]));
    await tick();
    expect(calls).toEqual([[1], [2]]);
    gates[1]!.resolve();
    await tick();
    expect(second.outcome).toBe('resolved');
    expect(first.settled).toBe(false);
    expect(calls).toEqual([[1], [2], [3, 4]]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await tick();
    expect([first.outcome, third.outcome, fourth.outcome]).toEqual(['resolved', 'resolved', 'resolved']);
  });

  it('rejects exactly the publishes of the batch whose handler call failed', async () => {
    const firstCall = deferred();
    let call = 0;
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async () => {
      call += 1;
      if (call === 1) await firstCall.promise;
      if (call === 2) throw new Error('disk full');
    });
    const first = track(bus.publish(Topics.logs, [message(1)]));
    await tick();
    const second = track(bus.publish(Topics.logs, [message(2)]));
    const third = track(bus.publish(Topics.logs, [message(3)]));
    firstCall.resolve();
    await tick();
    expect(first.outcome).toBe('resolved');
    expect(second.outcome).toBe('rejected');
    expect(third.outcome).toBe('rejected');
    expect((second.error as Error).message).toBe('disk full');
    expect(third.error).toBe(second.error);
    await expect(bus.publish(Topics.logs, [message(4)])).resolves.toBeUndefined();
    expect(call).toBe(3);
  });

  it('caps one handler call at 20,000 values and never splits a publish', async () => {
    const firstCall = deferred();
    const sizes: number[] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values) => {
      sizes.push(values.length);
      if (sizes.length === 1) await firstCall.promise;
    });
    const batch = (size: number) => Array.from({ length: size }, (_, index) => message(index));
    const publishes = [bus.publish(Topics.logs, batch(1))];
    await tick();
    publishes.push(bus.publish(Topics.logs, batch(8_000)), bus.publish(Topics.logs, batch(12_000)));
    publishes.push(bus.publish(Topics.logs, batch(25_000)), bus.publish(Topics.logs, batch(1)));
    firstCall.resolve();
    await Promise.all(publishes);
    expect(sizes).toEqual([1, 20_000, 25_000, 1]);
  });

  it('rejects a publish to a topic without subscribers, since nobody would store the data', async () => {
    await expect(bus.publish(Topics.events, [message(1)])).rejects.toThrow('no consumer is subscribed to tlm.events.v1');
  });

  it('rejects a publish once the only subscription has closed', async () => {
    const subscription = await bus.subscribe<number>(Topics.events, { group: 'writer' }, async () => undefined);
    await subscription.close();
    await expect(bus.publish(Topics.events, [message(1)])).rejects.toThrow('no consumer is subscribed to tlm.events.v1');
  });

  it('resolves an empty publish at once without calling the handler', async () => {
    const calls: number[][] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values) => {
      calls.push(values);
    });
    await bus.publish(Topics.logs, []);
    await expect(bus.publish(Topics.events, [])).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('waits for every subscribed group and fails when any group fails', async () => {
    const written: number[] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values) => {
      written.push(...values);
    });
    await bus.subscribe<number>(Topics.logs, { group: 'scanner' }, async () => {
      throw new Error('scanner down');
    });
    await expect(bus.publish(Topics.logs, [message(7)])).rejects.toThrow('scanner down');
    expect(written).toEqual([7]);
  });
});

describe('EmbeddedBus.subscribe', () => {
  it('delivers every message to each broadcast subscriber of one group', async () => {
    const received: Record<string, unknown[]> = { first: [], second: [] };
    await bus.subscribe(Topics.keyChanges, { group: 'key-cache', broadcast: true }, async (values) => {
      received['first']!.push(...values);
    });
    await bus.subscribe(Topics.keyChanges, { group: 'key-cache', broadcast: true }, async (values) => {
      received['second']!.push(...values);
    });
    await bus.publish(Topics.keyChanges, [{ key: 'k', value: { keyIds: ['a'] } }]);
    await bus.publish(Topics.keyChanges, [{ key: 'k', value: { projectIds: ['p'] } }]);
    expect(received).toEqual({
      first: [{ keyIds: ['a'] }, { projectIds: ['p'] }],
      second: [{ keyIds: ['a'] }, { projectIds: ['p'] }],
    });
  });

  it('accepts a new broadcast subscriber after an earlier one of the group closed', async () => {
    const first = await bus.subscribe(Topics.keyChanges, { group: 'key-cache', broadcast: true }, async () => undefined);
    const received: unknown[] = [];
    await bus.subscribe(Topics.keyChanges, { group: 'key-cache', broadcast: true }, async (values) => {
      received.push(...values);
    });
    await first.close();
    const third: unknown[] = [];
    await bus.subscribe(Topics.keyChanges, { group: 'key-cache', broadcast: true }, async (values) => {
      third.push(...values);
    });
    await bus.publish(Topics.keyChanges, [{ key: 'k', value: { orgIds: ['o'] } }]);
    expect(received).toEqual([{ orgIds: ['o'] }]);
    expect(third).toEqual([{ orgIds: ['o'] }]);
  });

  it('refuses a second subscriber of one shared group on one topic', async () => {
    await bus.subscribe(Topics.logs, { group: 'writer' }, async () => undefined);
    await expect(bus.subscribe(Topics.logs, { group: 'writer' }, async () => undefined)).rejects.toThrow(
      'group writer already consumes tlm.logs.v1 in this process',
    );
  });

  it('lets one group name consume two topics', async () => {
    await bus.subscribe(Topics.logs, { group: 'writer' }, async () => undefined);
    await expect(bus.subscribe(Topics.events, { group: 'writer' }, async () => undefined)).resolves.toBeDefined();
  });

  it('finishes the batch in hand when a subscription closes', async () => {
    const release = deferred();
    let finished = false;
    const subscription = await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async () => {
      await release.promise;
      finished = true;
    });
    const publish = bus.publish(Topics.logs, [message(1)]);
    await tick();
    const closing = track(subscription.close());
    await tick();
    expect(closing.settled).toBe(false);
    release.resolve();
    await publish;
    await tick();
    expect(finished).toBe(true);
    expect(closing.outcome).toBe('resolved');
  });
});

describe('EmbeddedBus.close', () => {
  it('drains the handler calls in flight before it resolves, then refuses publishes and pings', async () => {
    const release = deferred();
    const written: number[] = [];
    await bus.subscribe<number>(Topics.logs, { group: 'writer' }, async (values) => {
      await release.promise;
      written.push(...values);
    });
    const first = bus.publish(Topics.logs, [message(1)]);
    await tick();
    const second = bus.publish(Topics.logs, [message(2)]);
    const closing = track(bus.close());
    await tick();
    expect(closing.settled).toBe(false);
    release.resolve();
    await Promise.all([first, second]);
    await tick();
    expect(closing.outcome).toBe('resolved');
    expect(written).toEqual([1, 2]);
    await expect(bus.publish(Topics.logs, [message(3)])).rejects.toThrow('bus is closed');
    await expect(bus.ping()).rejects.toThrow('bus is closed');
  });

  it('answers ping while open', async () => {
    await expect(bus.ping()).resolves.toBeUndefined();
  });
});
