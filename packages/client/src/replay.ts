import { asError, byteLength, type Transport } from './transport';

/**
 * Session replay for the browser client: rrweb's `record` (loaded on demand, so pages without replay never fetch it)
 * buffers the page's DOM snapshots and changes, and each flush sends what was recorded as one chunk of
 * `POST /v1/replay/chunks` (the JSON array gzipped by the browser's CompressionStream). The replay is the client's
 * session (`$session_id`, one per tab): its metadata goes once through `POST /v1/replay/sessions`, and the chunk
 * number is kept in sessionStorage so that a reload goes on with the next one and the player shows both pages.
 */

export interface ReplayOptions {
  /** Replaces the value of every input with `*` before it is recorded; default true. */
  maskAllInputs?: boolean;
  /** Replaces every text node with `*`; default false. */
  maskAllText?: boolean;
  /** Elements matching this selector are recorded as empty boxes of their size. */
  blockSelector?: string;
}

export interface ReplayContext {
  transport: Transport;
  replayId: string;
  distinctId: string;
  release: string | undefined;
  environment: string | undefined;
  sdkName: string;
}

/** An rrweb event as this module handles it: only its time is read. */
interface RecordedEvent {
  timestamp: number;
}

const SEQ_KEY = 'tlm_replay_seq';

function storedSeq(): number {
  try {
    const value = Number(sessionStorage.getItem(SEQ_KEY));
    return Number.isInteger(value) && value >= 0 ? value : 0;
  } catch {
    return 0;
  }
}

function storeSeq(seq: number): void {
  try {
    sessionStorage.setItem(SEQ_KEY, String(seq));
  } catch {
    // Without storage a reload starts again at 0 and replaces the first chunks: the newest page wins.
  }
}

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export class ReplayRecorder {
  private events: RecordedEvent[] = [];
  private stopRecording: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly context: ReplayContext,
    options: ReplayOptions,
  ) {
    if (storedSeq() === 0) void this.sendSession();
    void import('rrweb')
      .then(({ record }) => {
        if (this.stopped) return;
        this.stopRecording = record({
          emit: (event) => {
            this.events.push(event);
          },
          maskAllInputs: options.maskAllInputs !== false,
          ...(options.maskAllText ? { maskTextSelector: '*' } : {}),
          ...(options.blockSelector ? { blockSelector: options.blockSelector } : {}),
        });
      })
      .catch((error: unknown) => context.transport.report(asError(error)));
  }

  get replayId(): string {
    return this.context.replayId;
  }

  /** Sends what was recorded since the last flush as the next chunk; resolves when sent or given up on. */
  async flush(): Promise<void> {
    const taken = this.take();
    if (!taken) return;
    try {
      const body = await gzip(taken.json);
      await this.context.transport.deliver({
        path: `/v1/replay/chunks?session_id=${encodeURIComponent(this.context.replayId)}&seq=${taken.seq}`,
        body,
        contentType: 'application/octet-stream',
      });
    } catch (error) {
      this.context.transport.report(asError(error));
    }
  }

  /**
   * The last chunk of a leaving page, as a Sentry `replay_recording` envelope item (its recording may be plain JSON,
   * which needs no asynchronous compression a leaving page might not finish). Returns the envelope, or undefined
   * when nothing was recorded since the last flush.
   */
  takeEnvelope(): string | undefined {
    const taken = this.take();
    if (!taken) return undefined;
    const recording = `{"segment_id":${taken.seq}}\n${taken.json}`;
    const header = JSON.stringify({ event_id: this.context.replayId, sent_at: new Date().toISOString() });
    return `${header}\n${JSON.stringify({ type: 'replay_recording', length: byteLength(recording) })}\n${recording}\n`;
  }

  stop(): void {
    this.stopped = true;
    this.stopRecording?.();
  }

  /** The buffered events and the chunk number they go under; the number is spent at once, so no two chunks share one. */
  private take(): { seq: number; json: string } | undefined {
    if (this.events.length === 0) return undefined;
    const events = this.events;
    this.events = [];
    const seq = storedSeq();
    storeSeq(seq + 1);
    return { seq, json: JSON.stringify(events) };
  }

  private async sendSession(): Promise<void> {
    const { replayId, distinctId, release, environment, sdkName } = this.context;
    const session = {
      session_id: replayId,
      distinct_id: distinctId,
      started_at: Date.now(),
      url: location.href,
      user_agent: navigator.userAgent,
      properties: { release, environment, sdk_name: sdkName },
    };
    await this.context.transport.deliver({ path: '/v1/replay/sessions', body: JSON.stringify(session), contentType: 'application/json' });
  }
}
