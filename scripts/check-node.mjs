// Fails loudly when npm scripts run under a Node older than the toolchain needs.
// The devDependency `node` puts a modern Node first on PATH for npm scripts; if its
// install script was skipped, npm silently falls back to the system Node.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `invoicing-service-sdk: npm scripts are running on Node ${process.versions.node}, but the toolchain needs Node >= 22.12.\n` +
      'The devDependency "node" should provide it: run `npm ci` again and allow its install script (npm config "allowScripts").',
  );
  process.exit(1);
}
