import {
  MAX_EXAMPLES,
  monthOf,
  type EventNameDelta,
  type PropertyDelta,
  type SchemaSignal,
  type UsageDelta,
} from '@tlm/metadata-store';
import { propertyType, type Properties, type PropertyValue } from '@tlm/signals';

/** Example values longer than this are cut; the schema document is for recognising values, not storing them. */
const MAX_EXAMPLE_LENGTH = 100;

interface StatsRecord {
  projectId: string;
  timestamp: number;
  properties: Properties;
}

interface PropertyTally {
  delta: PropertyDelta;
  seen: Set<string>;
}

/** One batch's additions to the schema document: per project and key, its type, new examples and count. */
export function propertyDeltas(signal: SchemaSignal, records: readonly StatsRecord[]): PropertyDelta[] {
  const tallies = new Map<string, PropertyTally>();
  for (const record of records) {
    for (const [key, value] of Object.entries(record.properties)) {
      const id = `${record.projectId}\u0000${key}`;
      let tally = tallies.get(id);
      const type = propertyType(value);
      if (!tally) {
        tally = { delta: { projectId: record.projectId, signal, key, type, examples: [], volume: 0 }, seen: new Set() };
        tallies.set(id, tally);
      } else if (tally.delta.type !== type) {
        tally.delta.type = 'mixed';
      }
      tally.delta.volume += 1;
      if (tally.delta.examples.length < MAX_EXAMPLES) addExample(tally, value);
    }
  }
  return [...tallies.values()].map((tally) => tally.delta);
}

function addExample(tally: PropertyTally, value: PropertyValue): void {
  const example = Array.isArray(value) ? JSON.stringify(value) : value;
  const shown = typeof example === 'string' && example.length > MAX_EXAMPLE_LENGTH ? `${example.slice(0, MAX_EXAMPLE_LENGTH)}…` : example;
  const id = JSON.stringify(shown);
  if (tally.seen.has(id)) return;
  tally.seen.add(id);
  tally.delta.examples.push(shown);
}

export function eventNameDeltas(records: readonly { projectId: string; event: string }[]): EventNameDelta[] {
  const counts = new Map<string, EventNameDelta>();
  for (const record of records) {
    const id = `${record.projectId}\u0000${record.event}`;
    const delta = counts.get(id) ?? { projectId: record.projectId, name: record.event, volume: 0 };
    delta.volume += 1;
    counts.set(id, delta);
  }
  return [...counts.values()];
}

/** Items per project and calendar month of their timestamp. */
export function usageDeltas(signal: string, records: readonly StatsRecord[]): UsageDelta[] {
  const counts = new Map<string, UsageDelta>();
  for (const record of records) {
    const month = monthOf(record.timestamp);
    const id = `${record.projectId}\u0000${month}`;
    const delta = counts.get(id) ?? { projectId: record.projectId, signal, month, items: 0 };
    delta.items += 1;
    counts.set(id, delta);
  }
  return [...counts.values()];
}
