// The source of a function for a child process's script (run with `--expose-gc`): `heapNodes(visit)` collects the
// garbage (three full collections, a turn between them so weak references and finalizers settle), takes a heap
// snapshot and calls `visit(kind, name)` for every node: what tests count by kind (a closure, an object's
// constructor name, `system / Context`). Counts of objects, the same on any machine, where a byte figure is not.
export const HEAP_NODES_SOURCE = `async function heapNodes(visit) {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const chunks = [];
  for await (const chunk of (await import('node:v8')).getHeapSnapshot()) chunks.push(chunk);
  const snapshot = JSON.parse(chunks.join(''));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [type, name] = [fields.indexOf('type'), fields.indexOf('name')];
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    visit(types[snapshot.nodes[i + type]], snapshot.strings[snapshot.nodes[i + name]]);
  }
}`;
