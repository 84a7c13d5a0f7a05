import { v7 } from 'uuid';

/** Time-ordered UUID (v7) for every stored resource and row, so ids sort by creation. */
export function newId(): string {
  return v7();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
