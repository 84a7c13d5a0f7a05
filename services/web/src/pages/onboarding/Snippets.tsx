import { useSearchParams } from 'react-router';
import { CopyButton } from '../../components/CopyButton';
import { onTabKey } from '../../components/tabs';
import { snippets, type SnippetValues } from './snippets';

/** One tab per SDK; the chosen tab is in the URL (?sdk=). */
export function Snippets({ values }: { values: SnippetValues }) {
  const [params, setParams] = useSearchParams();
  const all = snippets(values);
  const current = all.find((snippet) => snippet.id === params.get('sdk')) ?? all[0]!;
  const choose = (id: string) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        next.set('sdk', id);
        return next;
      },
      { replace: true },
    );
  return (
    <div>
      <div className="tabs" role="tablist" aria-label="SDKs">
        {all.map((snippet) => (
          <button
            key={snippet.id}
            type="button"
            role="tab"
            id={`tab-${snippet.id}`}
            aria-selected={snippet.id === current.id}
            aria-controls={`panel-${snippet.id}`}
            tabIndex={snippet.id === current.id ? 0 : -1}
            onClick={() => choose(snippet.id)}
            onKeyDown={(event) =>
              onTabKey(event, all.indexOf(snippet), all.length, (to) => {
                choose(all[to]!.id);
                return `tab-${all[to]!.id}`;
              })
            }
          >
            {snippet.title}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`}>
        <p>{current.intro}</p>
        {current.install ? (
          <div className="snippet">
            <pre>
              <code>{current.install}</code>
            </pre>
            <CopyButton text={current.install} label="Copy install command" />
          </div>
        ) : null}
        <div className="snippet">
          <pre>
            <code aria-label={`${current.title} snippet`}>{current.code}</code>
          </pre>
          <CopyButton text={current.code} label="Copy snippet" />
        </div>
      </div>
    </div>
  );
}
