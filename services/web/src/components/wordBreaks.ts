/**
 * Where a word too long for a narrow column may break: after `/`, `.`, `_`, `-`, `:`, `(` or `,`, before a capital
 * that follows a small letter (`renderTree|Recursively`), and every `longest` characters where no such place comes.
 * A table sizes a column by its longest unbreakable word, so one long identifier in a title would widen the whole
 * table on a phone; with these places it wraps like the rest of the text, and shorter words stay whole.
 */
export function wordSegments(word: string, longest: number): string[] {
  if (word.length <= longest) return [word];
  const segments: string[] = [];
  let start = 0;
  for (let index = 1; index < word.length; index += 1) {
    const before = word[index - 1]!;
    const here = word[index]!;
    const natural = '/._-:(,'.includes(before) || (/[a-z]/.test(before) && /[A-Z]/.test(here));
    if (natural || index - start >= longest) {
      segments.push(word.slice(start, index));
      start = index;
    }
  }
  segments.push(word.slice(start));
  return segments;
}
