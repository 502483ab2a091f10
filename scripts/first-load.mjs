// What a browser must fetch before a split bundle's entry runs: the entry chunk and the chunks it imports with import
// statements, transitively (dynamic `import()`s load later). Shared by the bundle bench and the package test.

/**
 * @param {Record<string, { imports: { path: string, kind: string }[] }>} outputs esbuild's `metafile.outputs`
 * @param {string} entry the entry chunk's path, as a key of `outputs`
 * @returns {Set<string>} the paths of the first load
 */
export function firstLoad(outputs, entry) {
  const first = new Set();
  const visit = (path) => {
    if (first.has(path)) return;
    first.add(path);
    for (const next of outputs[path].imports)
      if (next.kind === 'import-statement' && outputs[next.path]) visit(next.path);
  };
  visit(entry);
  return first;
}
