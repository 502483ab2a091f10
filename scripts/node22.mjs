// Node 22 for the runtime checks (Node 24 runs everything else, from the `node` devDependency).
//
// Why not a devDependency alias ("node22": "npm:node@^22")? Both it and the `node` package declare the bin `node`, and
// npm links whichever it reaches last into node_modules/.bin: with the alias installed, `npm run` ran on Node 22.23.3
// instead of 24. So the same registry package the `node` package itself installs (node-<platform>-<arch>, which ships
// the binary) is installed here on first use, into node_modules/.cache, with the npm client and its cache.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NODE22_VERSION = '22.23.3';

/** The path of a Node 22 binary, installed on first call. @throws {Error} when npm cannot install it. */
export function ensureNode22(root) {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  const name = `${prefix}-${platform}-${process.arch}`;
  const dir = join(root, 'node_modules/.cache/invoicing-sdk-node22');
  const binary = join(dir, 'node_modules', name, 'bin', platform === 'win' ? 'node.exe' : 'node');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'node22-holder', private: true }));
  execFileSync(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', '--prefer-offline', `${name}@${NODE22_VERSION}`],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (!existsSync(binary)) throw new Error(`npm installed ${name}@${NODE22_VERSION} but ${binary} is missing`);
  return binary;
}
