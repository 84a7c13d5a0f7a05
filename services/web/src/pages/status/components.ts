/** Component names typed one per line: trimmed, blank lines and repeats dropped. */
export function componentsFromText(text: string): { name: string }[] {
  const names = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return [...new Set(names)].map((name) => ({ name }));
}

export const componentsToText = (components: { name: string }[]) => components.map((component) => component.name).join('\n');
