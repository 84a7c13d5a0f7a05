import { useId, useState } from 'react';
import { frameGroups, frameLocation, hasMinified, shownFrame, type Frame } from './queries';

function FrameHead({ frame }: { frame: Frame }) {
  return (
    <>
      <span className="stack-function mono">{frame.function || '(anonymous)'}</span>
      <span className="stack-file mono">{frameLocation(frame)}</span>
      {frame.in_app ? <span className="badge badge-ok stack-app-badge">in app</span> : null}
    </>
  );
}

/**
 * The frame's line among the lines around it (when the SDK or source maps gave them), each with its number; the
 * frame's own line stands out.
 */
function SourceLines({ frame }: { frame: Frame }) {
  const before = frame.pre_context ?? [];
  const after = frame.post_context ?? [];
  const number = (offset: number) => (frame.lineno ? <span className="stack-line-no">{frame.lineno + offset}</span> : null);
  return (
    <>
      {before.map((line, index) => (
        <span key={`b${index}`} className="stack-line">
          {number(index - before.length)}
          {line}
        </span>
      ))}
      <span className={before.length + after.length > 0 ? 'stack-line stack-line-current' : 'stack-line'}>
        {number(0)}
        {frame.context_line}
      </span>
      {after.map((line, index) => (
        <span key={`a${index}`} className="stack-line">
          {number(index + 1)}
          {line}
        </span>
      ))}
    </>
  );
}

/** A frame: with its source line, open or folded; without one, its position alone. */
function FrameItem({ frame, open }: { frame: Frame; open: boolean }) {
  if (!frame.context_line) {
    return (
      <li className="stack-frame-plain">
        <FrameHead frame={frame} />
      </li>
    );
  }
  return (
    <li>
      <details className="stack-frame" open={open}>
        <summary>
          <FrameHead frame={frame} />
        </summary>
        <pre aria-label={`Source of ${frame.function || 'the frame'}`}>
          <code>
            <SourceLines frame={frame} />
          </code>
        </pre>
      </details>
    </li>
  );
}

/**
 * The raised exception's stack, innermost frame first: frames of the app open, the others folded into groups; when
 * source maps mapped the frames, a switch shows the minified positions instead.
 */
export function StackTrace({ frames, fromLog = false }: { frames: Frame[]; fromLog?: boolean }) {
  const [minified, setMinified] = useState(false);
  const switchId = useId();
  const mapped = hasMinified(frames);
  if (frames.length === 0) {
    return (
      <p className="muted">
        {fromLog
          ? 'The log held no stack trace this server reads (a Python traceback or a JavaScript stack), so the error is its message.'
          : 'This event has no stack trace: it was captured as a message, or the SDK sent none.'}
      </p>
    );
  }
  const shown = frames.map((frame) => shownFrame(frame, minified));
  const groups = frameGroups(shown);
  return (
    <>
      {!minified && !shown.some((frame) => frame.context_line) ? (
        <p className="muted stack-note">
          {fromLog
            ? 'The stack trace is read from the log, which holds no source lines.'
            : "The SDK sent no source lines. Upload the release's source maps to see original files, lines and code."}
        </p>
      ) : null}
      {mapped ? (
        <p className="row">
          <input id={switchId} type="checkbox" checked={minified} onChange={(event) => setMinified(event.target.checked)} />
          <label htmlFor={switchId}>Show minified frames (as the browser ran them, before source maps)</label>
        </p>
      ) : null}
      <ol className="stack" aria-label="Stack trace, most recent call first">
        {groups.map((group) =>
          group.inApp ? (
            group.frames.map(({ frame, index }) => <FrameItem key={index} frame={frame} open />)
          ) : (
            <li key={`library-${group.frames[0]!.index}`}>
              <details className="stack-library">
                <summary>
                  {group.frames.length} library {group.frames.length === 1 ? 'frame' : 'frames'}
                </summary>
                <ol className="stack">
                  {group.frames.map(({ frame, index }) => (
                    <FrameItem key={index} frame={frame} open={false} />
                  ))}
                </ol>
              </details>
            </li>
          ),
        )}
      </ol>
    </>
  );
}
