// Node 22 for the runtime checks (Node 24 runs everything else, from the `node` devDependency).
//
// Why not a devDependency alias ("node22": "npm:node@^22")? Both it and the `node` package declare the bin `node`, and
// npm links whichever it reaches last into node_modules/.bin: with the alias installed, `npm run` ran on Node 22.23.3
// instead of 24. So the same registry package the `node` package itself installs (node-<platform>-<arch>, which ships
// the binary) is installed here on first use, with the npm client and its cache, into the toolchain cache outside
// node_modules (scripts/toolchain.mjs says where), and reused by later runs and clones.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installOnce, npmIn } from './toolchain.mjs';

export const NODE22_VERSION = '22.23.3';

/** The path of a Node 22 binary, installed on first call. @throws {Error} when npm cannot install it. */
export function ensureNode22(_root) {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  const name = `${prefix}-${platform}-${process.arch}`;
  const dir = installOnce(`${name}-${NODE22_VERSION}`, (tmp) => {
    writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'node22-holder', private: true }));
    npmIn(tmp, ['install', '--no-save', `${name}@${NODE22_VERSION}`]);
  });
  const binary = join(dir, 'node_modules', name, 'bin', platform === 'win' ? 'node.exe' : 'node');
  if (!existsSync(binary)) throw new Error(`npm installed ${name}@${NODE22_VERSION} but ${binary} is missing`);
  return binary;
}
