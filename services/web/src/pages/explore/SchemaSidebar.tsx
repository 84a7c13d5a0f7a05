import { useState } from 'react';
import type { SchemaProperty } from '../../api/types';
import { ErrorNotice, Loading } from '../../components/States';
import { useSchema } from './hooks';
import { equalsCondition, propertyCondition } from './queryText';

const exampleText = (examples: unknown[]) =>
  examples
    .slice(0, 3)
    .map((example) => (example === '' ? '(empty)' : typeof example === 'string' ? example : JSON.stringify(example)))
    .join(', ');

function PropertyList({ title, source, properties, filter, onInsert }: {
  title: string;
  source: string;
  properties: SchemaProperty[];
  filter: string;
  onInsert: (text: string, source: string) => void;
}) {
  const shown = properties.filter((property) => property.key.toLowerCase().includes(filter));
  return (
    <section className="explore-schema-section" aria-label={title}>
      <h3>
        {title} <span className="muted">from:{source}</span>
      </h3>
      {shown.length === 0 ? (
        <p className="muted">{properties.length === 0 ? 'None seen yet.' : 'None match.'}</p>
      ) : (
        <ul>
          {[...shown]
            .sort((a, b) => b.volume - a.volume)
            .map((property) => {
              const insertion = propertyCondition('properties', property.key);
              return (
                <li key={property.key}>
                  <button type="button" className="explore-schema-item" title={`Insert ${insertion}`} onClick={() => onInsert(insertion, source)}>
                    <span className="mono explore-schema-key">{property.key}</span>
                    <span className="badge">{property.type}</span>
                    <span className="muted explore-schema-volume">{property.volume.toLocaleString()}</span>
                  </button>
                  {property.examples.length ? <div className="explore-schema-examples muted">e.g. {exampleText(property.examples)}</div> : null}
                </li>
              );
            })}
        </ul>
      )}
    </section>
  );
}

/**
 * The project's discovered schema; clicking an entry inserts it into the query at the cursor, or starts a query of
 * its source when the query reads another.
 */
export function SchemaSidebar({ org, project, onInsert }: { org: string; project: string; onInsert: (text: string, source: string) => void }) {
  const schema = useSchema(org, project);
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  return (
    <aside className="explore-schema" aria-label="Schema">
      <h2>Schema</h2>
      <label className="explore-control">
        <span className="visually-hidden">Filter schema</span>
        <input type="search" placeholder="Filter fields" aria-label="Filter schema" value={filter} onChange={(event) => setFilter(event.target.value)} />
      </label>
      {schema.isPending ? <Loading what="the schema" /> : null}
      {schema.isError ? <ErrorNotice error={schema.error} /> : null}
      {schema.data ? (
        <>
          <section className="explore-schema-section" aria-label="Event names">
            <h3>
              Event names <span className="muted">from:events</span>
            </h3>
            {schema.data.event_names.length === 0 ? (
              <p className="muted">No events seen yet.</p>
            ) : (
              <ul>
                {[...schema.data.event_names]
                  .filter((event) => event.name.toLowerCase().includes(needle))
                  .sort((a, b) => b.volume - a.volume)
                  .map((event) => {
                    const insertion = equalsCondition('event_name', event.name);
                    return (
                      <li key={event.name}>
                        <button type="button" className="explore-schema-item" title={`Insert ${insertion}`} onClick={() => onInsert(insertion, 'events')}>
                          <span className="mono explore-schema-key">{event.name}</span>
                          <span className="muted explore-schema-volume">{event.volume.toLocaleString()}</span>
                        </button>
                      </li>
                    );
                  })}
              </ul>
            )}
          </section>
          <PropertyList title="Log properties" source="logs" properties={schema.data.log_properties} filter={needle} onInsert={onInsert} />
          <PropertyList title="Event properties" source="events" properties={schema.data.event_properties} filter={needle} onInsert={onInsert} />
        </>
      ) : null}
    </aside>
  );
}
