import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Replayer, type eventWithTime } from 'rrweb';
import 'rrweb/dist/style.css';
import { clickMarks, errorClock, errorMarks, formatClock, type RecordedEvent, type ReplayError, type TimelineMark } from './replays';

export const SPEEDS = [0.5, 1, 2, 4, 8] as const;

/** The seek slider's step: arrow keys move a tenth of a second. */
const SEEK_STEP_MS = 100;

/** How long before a linked moment the player opens, so what led up to it is seen. */
const LEAD_IN_MS = 3_000;

/** rrweb's `EventType.FullSnapshot`: the whole page, from which the later changes are drawn. */
const FULL_SNAPSHOT = 2;

/** How far into the replay its first full snapshot is (0 when there is none yet). */
function firstSnapshotOffset(events: RecordedEvent[], startTime: number): number {
  const snapshot = events.find((event) => event.type === FULL_SNAPSHOT);
  return snapshot ? Math.max(0, snapshot.timestamp - startTime) : 0;
}

interface Meta {
  startTime: number;
  totalTime: number;
}

/**
 * rrweb's Replayer in a box of the page's width: the recorded viewport is scaled to fit. Events arrive in chunks:
 * the first two or more start the player, later ones are added while it plays (the Replayer takes events as they
 * come). The controls (play, pause, seek, speed) and the timeline of clicks and errors drive the Replayer's own
 * play and pause; nothing of the page is rebuilt here.
 */
export function ReplayPlayer({ events, loading, errors, issueBase, openAt }: {
  /** The events so far, in time order; the array grows as chunks arrive. */
  events: RecordedEvent[];
  /** More chunks are on their way. */
  loading: boolean;
  errors: ReplayError[];
  issueBase: string;
  /** A moment (epoch ms) to open at, from the URL (`?at=`): links from an error open a few seconds before it. */
  openAt: number | undefined;
}) {
  const stage = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const replayer = useRef<Replayer | null>(null);
  const added = useRef(0);
  const [meta, setMeta] = useState<Meta | null>(null);
  const [playing, setPlaying] = useState(false);
  const [current, setCurrent] = useState(0);
  const [speed, setSpeed] = useState(1);
  const [viewport, setViewport] = useState<{ width: number; height: number } | null>(null);
  const [scale, setScale] = useState(1);

  // The Replayer needs two events to start; later events are added to the running one.
  useEffect(() => {
    const root = frame.current;
    if (!root) return;
    if (!replayer.current) {
      if (events.length < 2) return;
      // triggerFocus off: a recorded focus would move the keyboard focus from the controls into the replayed page.
      const player = new Replayer(events as eventWithTime[], { root, showWarning: false, mouseTail: false, skipInactive: false, speed: 1, triggerFocus: false });
      player.on('resize', (size) => setViewport(size as { width: number; height: number }));
      player.on('finish', () => {
        setPlaying(false);
        setCurrent(player.getMetaData().totalTime);
      });
      replayer.current = player;
      added.current = events.length;
      const startTime = player.getMetaData().startTime;
      const start = openAt === undefined ? 0 : Math.max(0, openAt - startTime - LEAD_IN_MS);
      player.pause(Math.max(start, firstSnapshotOffset(events, startTime) + 1));
      setCurrent(start);
      setMeta(player.getMetaData());
    } else {
      const player = replayer.current;
      for (const event of events.slice(added.current)) player.addEvent(event as eventWithTime);
      added.current = events.length;
      // The Replayer takes added events in a microtask of its own; the length is read after those have run.
      queueMicrotask(() => {
        if (replayer.current === player) setMeta(player.getMetaData());
      });
    }
  }, [events, openAt]);

  useEffect(
    () => () => {
      replayer.current?.destroy();
      replayer.current = null;
    },
    [],
  );

  // The recorded viewport scaled down to the stage's width (never up), so the whole page is in view.
  useEffect(() => {
    const box = stage.current;
    if (!box || !viewport) return;
    const fit = () => setScale(Math.min(1, box.clientWidth / viewport.width, 600 / viewport.height));
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(box);
    return () => observer.disconnect();
  }, [viewport]);

  // The clock follows the Replayer while it plays.
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => setCurrent(replayer.current?.getCurrentTime() ?? 0), 100);
    return () => clearInterval(timer);
  }, [playing]);

  const seek = useCallback(
    (offsetMs: number) => {
      const player = replayer.current;
      if (!player) return;
      // The Replayer draws the events before the position at once and schedules the rest; a position at or before the
      // first full snapshot would leave the snapshot scheduled, and a paused player would never draw it.
      const position = Math.max(offsetMs, firstSnapshotOffset(events, player.getMetaData().startTime) + 1);
      if (playing) player.play(position);
      else player.pause(position);
      setCurrent(offsetMs);
    },
    [playing, events],
  );

  const toggle = () => {
    const player = replayer.current;
    if (!player || !meta) return;
    if (playing) {
      player.pause();
      setCurrent(player.getCurrentTime());
      setPlaying(false);
    } else {
      player.play(current >= meta.totalTime ? 0 : current);
      setPlaying(true);
    }
  };

  const changeSpeed = (next: number) => {
    setSpeed(next);
    replayer.current?.setConfig({ speed: next });
  };

  const total = meta?.totalTime ?? 0;
  const marks: TimelineMark[] = meta ? [...clickMarks(events, meta.startTime), ...errorMarks(errors, meta.startTime, total, !loading)] : [];
  // The slider's end is a whole step at or past the replay's end, so End and the last step reach every event.
  const seekEnd = Math.max(SEEK_STEP_MS, Math.ceil(total / SEEK_STEP_MS) * SEEK_STEP_MS);
  const at = (offsetMs: number) => `${total > 0 ? Math.min(100, (offsetMs / total) * 100) : 0}%`;

  return (
    <div className="replay-player">
      <div className="replay-stage" ref={stage} style={viewport ? { height: viewport.height * scale } : undefined}>
        {/* The box takes the scaled size in the layout; the frame inside keeps the recorded size and is scaled. */}
        <div className="replay-box" style={viewport ? { width: viewport.width * scale, height: viewport.height * scale } : undefined}>
          <div
            className="replay-frame"
            ref={frame}
            data-testid="replay-frame"
            style={viewport ? { width: viewport.width, height: viewport.height, transform: `scale(${scale})` } : undefined}
          />
        </div>
        {!meta ? <p className="muted replay-waiting">{loading ? 'Loading the recording…' : 'This replay has too few events to play.'}</p> : null}
      </div>
      <div className="replay-controls" aria-label="Player controls">
        <button type="button" className="button button-primary" onClick={toggle} disabled={!meta} aria-label={playing ? 'Pause' : 'Play'}>
          {playing ? 'Pause' : 'Play'}
        </button>
        <span className="replay-clock" aria-label="Position">
          {formatClock(current)} / {formatClock(total)}
        </span>
        <div className="replay-timeline">
          <input
            type="range"
            aria-label="Seek"
            min={0}
            max={seekEnd}
            step={SEEK_STEP_MS}
            value={Math.min(Math.round(current), seekEnd)}
            disabled={!meta}
            onChange={(event) => seek(Number(event.target.value))}
          />
          <div className="replay-marks" aria-label="Clicks and errors on the timeline">
            {marks.map((mark, index) => (
              <button
                key={`${mark.kind}-${index}`}
                type="button"
                className={`replay-mark replay-mark-${mark.kind}`}
                style={{ left: at(mark.offsetMs) }}
                title={`${formatClock(mark.offsetMs)} ${mark.label}`}
                aria-label={`${mark.kind === 'error' ? 'Error' : 'Click'} at ${formatClock(mark.offsetMs)}`}
                onClick={() => seek(mark.offsetMs)}
              />
            ))}
          </div>
        </div>
        <label className="replay-speed">
          <span className="muted">Speed</span>
          <select aria-label="Speed" value={speed} onChange={(event) => changeSpeed(Number(event.target.value))}>
            {SPEEDS.map((value) => (
              <option key={value} value={value}>
                {value}×
              </option>
            ))}
          </select>
        </label>
        {loading ? <span className="muted">loading more…</span> : null}
      </div>
      {errors.length > 0 ? (
        <section className="panel replay-errors" aria-label="Errors during the replay">
          <h2>Errors</h2>
          <ul>
            {errors.map((error) => {
              const clock = meta ? errorClock(error.timestamp, meta.startTime, total, !loading) : { offsetMs: 0, text: formatClock(0) };
              return (
                <li key={error.id}>
                  <button type="button" className="button button-small" onClick={() => seek(clock.offsetMs)}>
                    {clock.text}
                  </button>{' '}
                  <Link to={`${issueBase}/${encodeURIComponent(error.issue_id)}`}>
                    <strong>{error.type}</strong>: {error.value}
                  </Link>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
