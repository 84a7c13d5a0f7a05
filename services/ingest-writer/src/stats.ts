import {
  advanceStatsPositions,
  MAX_EXAMPLES,
  monthOf,
  recordSchema,
  recordUsage,
  type EventNameDelta,
  type PropertyDelta,
  type SchemaSignal,
  type SqlClient,
  type StatsPositionAdvance,
  type UsageDelta,
} from '@tlm/metadata-store';
import { propertyType, type Properties, type PropertyValue } from '@tlm/signals';

// Read once here: a package's exports are getters on its module object, and the loop over every property of every
// record would otherwise call two of them per property (about 2% of the main thread for events in batches of 500).
const maxExamples = MAX_EXAMPLES;
const typeOfProperty = propertyType;

/** Example values longer than this are cut; the schema document is for recognising values, not storing them. */
const MAX_EXAMPLE_LENGTH = 100;

interface StatsRecord {
  projectId: string;
  /** When the service received the item: usage counts what a month took in, whatever times the items carry. */
  receivedAt: number;
  properties: Properties;
}

interface PropertyTally extends PropertyDelta {
  /** Examples already kept; they are primitives (arrays arrive as JSON text), so the Set compares them by value. */
  seen: Set<unknown>;
}

/**
 * Schema-registry and usage increments gathered across write batches and written in one transaction per flush.
 * They are derived from rows already committed, so they are kept off the ingest path: a 202 never waits for them.
 */
export class StatsTally {
  /** Tallies by `${projectId}\0${signal}`, then by property key: one string join per run of a project's records, not per property. */
  private properties = new Map<string, Map<string, PropertyTally>>();
  /** Event name tallies by project, then by name. */
  private eventNames = new Map<string, Map<string, EventNameDelta>>();
  private usage = new Map<string, UsageDelta>();

  get empty(): boolean {
    return this.properties.size === 0 && this.eventNames.size === 0 && this.usage.size === 0;
  }

  addRecords(signal: SchemaSignal, records: readonly StatsRecord[]): void {
    // Rows of one batch mostly share a project: its scope is looked up once per run of them, by the project id alone
    // (a key built per record is a string to allocate and hash each time).
    let scopeProject: string | undefined;
    let scope = new Map<string, PropertyTally>();
    let month = '';
    let monthStart = 0;
    let monthEnd = -1;
    let counted = 0;
    let countedProject = '';
    for (const record of records) {
      if (record.projectId !== scopeProject) {
        scopeProject = record.projectId;
        scope = this.scopeOf(`${record.projectId}\u0000${signal}`);
      }
      const properties = record.properties;
      for (const key in properties) {
        const value = properties[key]!;
        const tally = this.tallyIn(scope, signal, record.projectId, key, typeOfProperty(value));
        tally.volume += 1;
        if (tally.examples.length < maxExamples) keepExample(tally, exampleOf(value));
      }
      // Rows of one batch mostly share a project and a month: count runs, not rows.
      const inMonth = record.receivedAt >= monthStart && record.receivedAt < monthEnd;
      if (!inMonth || record.projectId !== countedProject) {
        if (counted > 0) this.addUsage({ projectId: countedProject, signal, month, items: counted });
        counted = 0;
        countedProject = record.projectId;
        if (!inMonth) {
          const start = new Date(record.receivedAt);
          monthStart = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1);
          monthEnd = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
          month = monthOf(record.receivedAt);
        }
      }
      counted += 1;
    }
    if (counted > 0) this.addUsage({ projectId: countedProject, signal, month, items: counted });
  }

  addEventNames(records: readonly { projectId: string; event: string }[]): void {
    let project: string | undefined;
    let names = new Map<string, EventNameDelta>();
    for (const record of records) {
      if (record.projectId !== project) {
        project = record.projectId;
        names = this.eventNamesOf(project);
      }
      let delta = names.get(record.event);
      if (!delta) {
        delta = { projectId: record.projectId, name: record.event, volume: 0 };
        names.set(record.event, delta);
      }
      delta.volume += 1;
    }
  }

  /** Everything gathered so far, leaving the tally empty. */
  take(): { properties: PropertyDelta[]; eventNames: EventNameDelta[]; usage: UsageDelta[] } {
    const taken = {
      properties: [...this.properties.values()].flatMap((scope) => [...scope.values()].map(({ seen: _seen, ...delta }) => delta)),
      eventNames: [...this.eventNames.values()].flatMap((names) => [...names.values()]),
      usage: [...this.usage.values()],
    };
    this.properties = new Map();
    this.eventNames = new Map();
    this.usage = new Map();
    return taken;
  }

  /** Puts back what a failed flush took, so the next flush writes it. */
  restore(taken: ReturnType<StatsTally['take']>): void {
    for (const delta of taken.properties) {
      const scope = this.scopeOf(`${delta.projectId}\u0000${delta.signal}`);
      const tally = this.tallyIn(scope, delta.signal, delta.projectId, delta.key, delta.type);
      tally.volume += delta.volume;
      for (const example of delta.examples) if (tally.examples.length < maxExamples) keepExample(tally, example);
    }
    for (const delta of taken.eventNames) {
      const names = this.eventNamesOf(delta.projectId);
      const current = names.get(delta.name) ?? { ...delta, volume: 0 };
      current.volume += delta.volume;
      names.set(delta.name, current);
    }
    for (const delta of taken.usage) this.addUsage(delta);
  }

  private scopeOf(id: string): Map<string, PropertyTally> {
    return innerMap(this.properties, id);
  }

  private eventNamesOf(projectId: string): Map<string, EventNameDelta> {
    return innerMap(this.eventNames, projectId);
  }

  private tallyIn(scope: Map<string, PropertyTally>, signal: SchemaSignal, projectId: string, key: string, type: string): PropertyTally {
    let tally = scope.get(key);
    if (!tally) {
      tally = { projectId, signal, key, type, examples: [], volume: 0, seen: new Set() };
      scope.set(key, tally);
    } else if (tally.type !== type) {
      tally.type = 'mixed';
    }
    return tally;
  }

  private addUsage(delta: UsageDelta): void {
    const id = `${delta.projectId}\u0000${delta.signal}\u0000${delta.month}`;
    const current = this.usage.get(id) ?? { ...delta, items: 0 };
    current.items += delta.items;
    this.usage.set(id, current);
  }
}

/** The map kept under `key` in `outer`, made empty on first use. */
function innerMap<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

/** How a value is shown as an example: arrays as JSON text, long strings cut. */
function exampleOf(value: PropertyValue): unknown {
  const example = Array.isArray(value) ? JSON.stringify(value) : value;
  return typeof example === 'string' && example.length > MAX_EXAMPLE_LENGTH ? `${example.slice(0, MAX_EXAMPLE_LENGTH)}…` : example;
}

function keepExample(tally: PropertyTally, example: unknown): void {
  if (tally.seen.has(example)) return;
  tally.seen.add(example);
  tally.examples.push(example);
}

export type StatsTaken = ReturnType<StatsTally['take']>;

/** A count refused because another writer has counted a partition further (a Kafka rebalance handed it over). */
export class PartitionTakenError extends Error {
  constructor(readonly partitions: readonly { topic: string; partition: number }[]) {
    super(`partitions ${partitions.map((taken) => `${taken.topic}[${taken.partition}]`).join(', ')} are counted by another writer`);
  }
}

/**
 * Writes one count of the tally and moves the stream positions it counted through, in a single transaction: the
 * counts and the positions are stored together or not at all. Rejects with PartitionTakenError, storing nothing, when
 * another writer moved one of the positions first.
 */
export async function writeStats(
  store: { transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> },
  taken: StatsTaken,
  advances: readonly StatsPositionAdvance[],
): Promise<void> {
  await store.transaction(async (tx) => {
    const lost = await advanceStatsPositions(tx, advances);
    // Thrown inside the transaction, so its counts roll back with it.
    if (lost.length > 0) throw new PartitionTakenError(lost);
    await recordSchema(tx, taken.properties, taken.eventNames);
    await recordUsage(tx, taken.usage);
  });
}
