// WATCH_NAMESPACE as operator-sdk reads it: split on commas, entries trimmed, empties dropped; nothing left means
// all namespaces (['']). Pure; called by the CLI entry.

export function watchNamespaces(value: string | undefined): string[] {
  const list = [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  return list.length === 0 ? [''] : list;
}
