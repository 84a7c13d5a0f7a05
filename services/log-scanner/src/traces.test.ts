import { parseTrace } from './traces';

// Real output of CPython 3.11 (logging.exception) and Node 20 (error.stack and util.inspect), paths moved to /srv.

const PYTHON_CHAINED = `order 42 could not be processed
Traceback (most recent call last):
  File "/srv/app/orders.py", line 10, in lookup_customer
    return customers[order["customer_id"]]
           ~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^
KeyError: 7

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/orders.py", line 18, in process
    return lookup_customer(order, customers)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/app/orders.py", line 12, in lookup_customer
    raise LookupError(f"unknown customer {order['customer_id']}")
LookupError: unknown customer 7

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/srv/main.py", line 8, in <module>
    process('{"customer_id": 7}', {})
  File "/srv/app/orders.py", line 20, in process
    raise RuntimeError("order processing failed") from error
RuntimeError: order processing failed`;

const PYTHON_LIBRARY = `bad payload
Traceback (most recent call last):
  File "/srv/main.py", line 12, in <module>
    load_order('{"broken": ')
  File "/srv/app/orders.py", line 5, in load_order
    return json.loads(raw)
           ^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode
    obj, end = self.raw_decode(s, idx=_w(s, 0).end())
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 12 (char 11)`;

// CPython 3.11: an asyncio.TaskGroup's ExceptionGroup, and a group nested in a group raised while handling a KeyError.
const PYTHON_TASK_GROUP = `nightly sync failed
  + Exception Group Traceback (most recent call last):
  |   File "/srv/main.py", line 6, in <module>
  |     asyncio.run(sync_all())
  |   File "/usr/lib/python3.11/asyncio/runners.py", line 190, in run
  |     return runner.run(main)
  |            ^^^^^^^^^^^^^^^^
  |   File "/srv/app/sync.py", line 9, in sync_all
  |     async with asyncio.TaskGroup() as group:
  |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 145, in __aexit__
  |     raise me from None
  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/srv/app/sync.py", line 5, in pull
    |     raise ConnectionError(f"{source} unreachable")
    | ConnectionError: billing unreachable
    +---------------- 2 ----------------
    | Traceback (most recent call last):
    |   File "/srv/app/sync.py", line 6, in pull
    |     raise TimeoutError(f"{source} timed out")
    | TimeoutError: crm timed out
    +------------------------------------`;

const PYTHON_NESTED_GROUP = `Traceback (most recent call last):
  File "/srv/main.py", line 11, in <module>
    {}["plan"]
    ~~^^^^^^^^
KeyError: 'plan'

During handling of the above exception, another exception occurred:

  + Exception Group Traceback (most recent call last):
  |   File "/srv/main.py", line 13, in <module>
  |     raise ExceptionGroup("checks failed", [ValueError("quota"), ExceptionGroup("nested", [TypeError("t")])])
  | ExceptionGroup: checks failed (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | ValueError: quota
    +---------------- 2 ----------------
    | ExceptionGroup: nested (1 sub-exception)
    +-+---------------- 1 ----------------
      | TypeError: t
      +------------------------------------`;

const NODE_STACK = `TypeError: Cannot read properties of undefined (reading 'rows')
    at Object.query (/srv/node_modules/fake-db/index.js:1:45)
    at getUser (/srv/src/users.js:2:34)
    at Object.<anonymous> (/srv/main.js:3:7)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49`;

const NODE_INSPECT_WITH_CAUSE = `Error: user lookup failed
    at handler (/srv/src/users.js:4:57)
    at Object.<anonymous> (/srv/main.js:5:1)
    ... 5 lines matching cause stack trace ...
    at node:internal/main/run_main_module:28:49 {
  [cause]: TypeError: Cannot read properties of undefined (reading 'rows')
      at Object.query (/srv/node_modules/fake-db/index.js:1:45)
      at getUser (/srv/src/users.js:2:34)
      at handler (/srv/src/users.js:4:16)
      at Object.<anonymous> (/srv/main.js:5:1)
      at node:internal/main/run_main_module:28:49
}`;

const NODE_INSPECT_WITH_CODE = `RangeError: bad
    at /srv/main.js:5:99
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {
  code: 'ERR_OUT_OF_RANGE'
}`;

describe('Python tracebacks', () => {
  it('takes the type, value and frames of the last exception, innermost frame last, with source lines', () => {
    const trace = parseTrace(PYTHON_CHAINED)!;
    expect(trace.platform).toBe('python');
    expect(trace.prefix).toBe('order 42 could not be processed');
    expect(trace.exception).toMatchObject({ type: 'RuntimeError', value: 'order processing failed', module: null });
    expect(trace.exception.frames).toEqual([
      {
        function: '<module>',
        filename: '/srv/main.py',
        abs_path: '/srv/main.py',
        module: null,
        lineno: 8,
        colno: null,
        in_app: true,
        context_line: `process('{"customer_id": 7}', {})`,
      },
      {
        function: 'process',
        filename: '/srv/app/orders.py',
        abs_path: '/srv/app/orders.py',
        module: null,
        lineno: 20,
        colno: null,
        in_app: true,
        context_line: 'raise RuntimeError("order processing failed") from error',
      },
    ]);
  });

  it('keeps the nested chain nearest first: "direct cause" as cause, "During handling" as context', () => {
    const trace = parseTrace(PYTHON_CHAINED)!;
    expect(trace.chain.map(({ type, value, relation }) => ({ type, value, relation }))).toEqual([
      { type: 'LookupError', value: 'unknown customer 7', relation: 'cause' },
      { type: 'KeyError', value: '7', relation: 'context' },
    ]);
    expect(trace.chain[1]!.frames.map((frame) => [frame.function, frame.lineno])).toEqual([['lookup_customer', 10]]);
    expect(trace.chain[0]!.frames.map((frame) => [frame.function, frame.lineno])).toEqual([
      ['process', 18],
      ['lookup_customer', 12],
    ]);
  });

  it('splits a dotted exception type into its module and marks standard-library frames as not in-app', () => {
    const trace = parseTrace(PYTHON_LIBRARY)!;
    expect(trace.exception).toMatchObject({ type: 'JSONDecodeError', module: 'json.decoder', value: 'Expecting value: line 1 column 12 (char 11)' });
    expect(trace.exception.frames.map((frame) => [frame.function, frame.in_app])).toEqual([
      ['<module>', true],
      ['load_order', true],
      ['loads', false],
      ['decode', false],
      ['raw_decode', false],
    ]);
    expect(trace.chain).toEqual([]);
  });

  it('reads site-packages frames as not in-app, a bare exception type, and a multi-line message', () => {
    const trace = parseTrace(`Traceback (most recent call last):
  File "/srv/venv/lib/python3.12/site-packages/requests/api.py", line 59, in request
    return session.request(method=method, url=url, **kwargs)
  File "/srv/app/sync.py", line 3, in pull
StopIteration`)!;
    expect(trace.exception).toMatchObject({ type: 'StopIteration', value: '' });
    expect(trace.exception.frames.map((frame) => [frame.function, frame.in_app, frame.context_line])).toEqual([
      ['request', false, 'return session.request(method=method, url=url, **kwargs)'],
      ['pull', true, null],
    ]);
    const multiline = parseTrace(`Traceback (most recent call last):
  File "/srv/app/check.py", line 2, in <module>
    assert total == 3, "totals differ"
AssertionError: totals differ
expected 3, got 4`)!;
    expect(multiline.exception.value).toBe('totals differ\nexpected 3, got 4');
  });

  it('skips "[Previous line repeated]" lines of a recursion error', () => {
    const trace = parseTrace(`Traceback (most recent call last):
  File "/srv/app/tree.py", line 4, in walk
    return walk(node.parent)
           ^^^^^^^^^^^^^^^^^
  File "/srv/app/tree.py", line 4, in walk
    return walk(node.parent)
           ^^^^^^^^^^^^^^^^^
  [Previous line repeated 996 more times]
RecursionError: maximum recursion depth exceeded`)!;
    expect(trace.exception.type).toBe('RecursionError');
    expect(trace.exception.frames).toHaveLength(2);
  });

  it('reads an exception group (Python 3.11+): the group is the error, its members the chain with their ids', () => {
    const trace = parseTrace(PYTHON_TASK_GROUP)!;
    expect(trace.prefix).toBe('nightly sync failed');
    expect(trace.exception).toMatchObject({ type: 'ExceptionGroup', value: 'unhandled errors in a TaskGroup (2 sub-exceptions)' });
    expect(trace.exception.frames.map((frame) => [frame.function, frame.lineno, frame.in_app])).toEqual([
      ['<module>', 6, true],
      ['run', 190, false],
      ['sync_all', 9, true],
      ['__aexit__', 145, false],
    ]);
    expect(trace.chain.map(({ type, value, relation, exceptionId, parentId }) => ({ type, value, relation, exceptionId, parentId }))).toEqual([
      { type: 'ConnectionError', value: 'billing unreachable', relation: 'cause', exceptionId: 1, parentId: 0 },
      { type: 'TimeoutError', value: 'crm timed out', relation: 'cause', exceptionId: 2, parentId: 0 },
    ]);
    expect(trace.chain[1]!.frames).toMatchObject([{ function: 'pull', lineno: 6, context_line: 'raise TimeoutError(f"{source} timed out")' }]);
  });

  it('numbers nested groups depth first and keeps what the group was raised while handling after its members', () => {
    const trace = parseTrace(PYTHON_NESTED_GROUP)!;
    expect(trace.exception).toMatchObject({ type: 'ExceptionGroup', value: 'checks failed (2 sub-exceptions)' });
    expect(trace.exception.frames.map((frame) => frame.lineno)).toEqual([13]);
    expect(trace.chain.map(({ type, value, relation, exceptionId, parentId }) => ({ type, value, relation, exceptionId, parentId }))).toEqual([
      { type: 'ValueError', value: 'quota', relation: 'cause', exceptionId: 1, parentId: 0 },
      { type: 'ExceptionGroup', value: 'nested (1 sub-exception)', relation: 'cause', exceptionId: 2, parentId: 0 },
      { type: 'TypeError', value: 't', relation: 'cause', exceptionId: 3, parentId: 2 },
      { type: 'KeyError', value: "'plan'", relation: 'context', exceptionId: undefined, parentId: undefined },
    ]);
  });

  it('parses a chained exception that has no traceback of its own', () => {
    const trace = parseTrace(`Traceback (most recent call last):
  File "/srv/app/a.py", line 1, in <module>
ValueError: first

During handling of the above exception, another exception occurred:

RuntimeError: second`)!;
    expect(trace.exception).toMatchObject({ type: 'RuntimeError', value: 'second', frames: [] });
    expect(trace.chain).toMatchObject([{ type: 'ValueError', value: 'first', relation: 'context' }]);
  });
});

describe('V8 stacks', () => {
  it('parses error.stack: type, message, frames innermost last, node_modules and node: internals not in-app', () => {
    const trace = parseTrace(NODE_STACK)!;
    expect(trace.platform).toBe('javascript');
    expect(trace.prefix).toBeNull();
    expect(trace.exception).toMatchObject({ type: 'TypeError', value: "Cannot read properties of undefined (reading 'rows')" });
    const frames = trace.exception.frames;
    expect(frames).toHaveLength(9);
    expect(frames.at(-1)).toEqual({
      function: 'Object.query',
      filename: '/srv/node_modules/fake-db/index.js',
      abs_path: '/srv/node_modules/fake-db/index.js',
      module: null,
      lineno: 1,
      colno: 45,
      in_app: false,
      context_line: null,
    });
    expect(frames.at(-2)).toMatchObject({ function: 'getUser', filename: '/srv/src/users.js', lineno: 2, colno: 34, in_app: true });
    expect(frames[0]).toMatchObject({ function: null, filename: 'node:internal/main/run_main_module', lineno: 28, in_app: false });
    expect(frames[1]).toMatchObject({ function: 'Function.executeUserEntryPoint [as runMain]', in_app: false });
  });

  it("reads util.inspect output: the outer error, its [cause] as the chain, and skips the elided-lines note", () => {
    const trace = parseTrace(NODE_INSPECT_WITH_CAUSE)!;
    expect(trace.exception.type).toBe('Error');
    expect(trace.exception.value).toBe('user lookup failed');
    expect(trace.exception.frames.map((frame) => frame.function)).toEqual([null, 'Object.<anonymous>', 'handler']);
    expect(trace.chain).toHaveLength(1);
    expect(trace.chain[0]).toMatchObject({ type: 'TypeError', relation: 'cause' });
    expect(trace.chain[0]!.frames.at(-1)!.function).toBe('Object.query');
  });

  it('orders nested [cause] blocks nearest first', () => {
    const trace = parseTrace(`Error: job failed
    at run ([eval]:5:51)
    at [eval]:6:7
    ... 5 lines matching cause stack trace ...
    at node:internal/main/eval_string:51:3 {
  [cause]: Error: save failed
      at save ([eval]:4:52)
      at run ([eval]:5:23)
      ... 6 lines matching cause stack trace ...
      at node:internal/main/eval_string:51:3 {
    [cause]: Error: disk full
        at load ([eval]:3:24)
        at save ([eval]:4:24)
        at run ([eval]:5:23)
        at node:internal/main/eval_string:51:3
  }
}`)!;
    expect(trace.exception.value).toBe('job failed');
    expect(trace.exception.frames.at(-1)).toMatchObject({ function: 'run', filename: '[eval]', lineno: 5, colno: 51 });
    expect(trace.chain.map((cause) => [cause.value, cause.relation, cause.frames.at(-1)!.function])).toEqual([
      ['save failed', 'cause', 'save'],
      ['disk full', 'cause', 'load'],
    ]);
  });

  it('stops at the error properties util.inspect prints after the frames', () => {
    const trace = parseTrace(NODE_INSPECT_WITH_CODE)!;
    expect(trace.exception).toMatchObject({ type: 'RangeError', value: 'bad' });
    expect(trace.exception.frames.map((frame) => [frame.function, frame.filename, frame.colno])).toEqual([
      ['process.processTicksAndRejections', 'node:internal/process/task_queues', 5],
      [null, '/srv/main.js', 99],
    ]);
  });

  it('reads browser frames with URLs, async and constructor frames, eval positions and Node error codes', () => {
    const trace = parseTrace(`Uncaught Error [ERR_INVALID_STATE]: cart is locked
    at new Cart (https://shop.example.com/static/js/app.4f3a.js:2:1024)
    at async checkout (https://shop.example.com/static/js/app.4f3a.js:1:77)
    at eval (eval at compile (https://shop.example.com/static/js/app.4f3a.js:3:5), <anonymous>:1:9)
    at async Promise.all (index 0)`)!;
    expect(trace.exception).toMatchObject({ type: 'Error', value: 'cart is locked' });
    expect(trace.exception.frames.map((frame) => [frame.function, frame.filename, frame.lineno, frame.colno])).toEqual([
      ['Promise.all', 'index 0', null, null],
      ['eval', '<anonymous>', 1, 9],
      ['checkout', 'https://shop.example.com/static/js/app.4f3a.js', 1, 77],
      ['new Cart', 'https://shop.example.com/static/js/app.4f3a.js', 2, 1024],
    ]);
  });

  it('strips file:// from ES module paths and finds the error type after prefixed log text', () => {
    const trace = parseTrace(`worker 3 crashed: SyntaxError: Unexpected token } in JSON at position 12
    at JSON.parse (<anonymous>)
    at parse (file:///srv/src/queue.mjs:14:21)`)!;
    expect(trace.prefix).toBe('worker 3 crashed');
    expect(trace.exception).toMatchObject({ type: 'SyntaxError', value: 'Unexpected token } in JSON at position 12' });
    expect(trace.exception.frames.at(0)).toMatchObject({ filename: '/srv/src/queue.mjs', abs_path: 'file:///srv/src/queue.mjs', lineno: 14 });
    expect(trace.exception.frames.at(-1)).toMatchObject({ function: 'JSON.parse', filename: '<anonymous>', lineno: null, in_app: false });
  });

  it.each([
    ['a frame line', `Error: x\n    at save${' '.repeat(60_000)}(/srv/src/store.js:8:3)`],
    ['a Python frame line', `Traceback (most recent call last):\n  File "/srv/a.py", line 1, in main${' '.repeat(60_000)}x\nValueError: x`],
    ['the text before an embedded error type', `job${' '.repeat(60_000)}7 TypeError: x\n    at save (/srv/src/store.js:8:3)`],
  ])('reads a run of 60,000 spaces inside %s in linear time', (_case, message) => {
    const started = performance.now();
    parseTrace(message);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('keeps frames and prefixes whose lines end in spaces', () => {
    const node = parseTrace(`worker 3 crashed:  \t TypeError: x  \n    at save (/srv/src/store.js:8:3)   \n    at /srv/src/main.js:2:1 \t`)!;
    expect(node.prefix).toBe('worker 3 crashed');
    expect(node.exception.frames.map((frame) => [frame.function, frame.filename, frame.lineno])).toEqual([
      [null, '/srv/src/main.js', 2],
      ['save', '/srv/src/store.js', 8],
    ]);
    const python = parseTrace('Traceback (most recent call last):\n  File "/srv/a.py", line 3, in main  \n    run()  \nValueError: x')!;
    expect(python.exception.frames).toEqual([expect.objectContaining({ function: 'main', filename: '/srv/a.py', lineno: 3, context_line: 'run()' })]);
  });

  it('reads a 64 KB headline of unclosed error codes in linear time', () => {
    const headline = ' TypeError ['.repeat(64 * 1024 / 12);
    const started = performance.now();
    const trace = parseTrace(`${headline}\n    at save (/srv/src/store.js:8:3)`)!;
    expect(performance.now() - started).toBeLessThan(100);
    expect(trace.exception).toMatchObject({ type: 'Error', value: headline.trim() });
  });

  it('calls a stack under a headline with no error type an Error with the headline as its value', () => {
    const trace = parseTrace(`Something went wrong while saving
    at save (/srv/src/store.js:8:3)`)!;
    expect(trace.exception).toMatchObject({ type: 'Error', value: 'Something went wrong while saving' });
  });
});

describe('messages that only look like traces', () => {
  it.each([
    ['a traceback header with nothing after it', 'Traceback (most recent call last): see the attached file'],
    ['a traceback header followed by prose', 'Traceback (most recent call last):\nthe worker died before printing it'],
    ['File lines with no exception line', 'Traceback (most recent call last):\n  File "/srv/app/a.py", line 1, in <module>'],
    ['a File line without the traceback header', 'ERROR: File "/srv/app/a.py", line 3, in main'],
    ['an error headline without frames', 'TypeError: x is not a function'],
    ['"at" in prose, indented', 'Retry budget exhausted\n    at least 3 attempts failed\n    at the moment we give up'],
    ['"at" with a time of day', 'Job failed\n    at 10:30:15'],
    ['"at" inline', "user searched for 'at foo (bar.js:1:2)' and got nothing"],
    ['a frame with no headline above it', '    at save (/srv/src/store.js:8:3)'],
    ['plain text', 'payment provider returned 502'],
    ['an empty message', ''],
  ])('%s is not a trace', (_label, message) => {
    expect(parseTrace(message)).toBeNull();
  });
});
