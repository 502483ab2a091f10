// Node 22 for the runtime checks (Node 24 runs everything else, from the `node` devDependency), and the oldest Node
// the package claims (engines.node) for the package test's consumer checks.
//
// Why not a devDependency alias ("node22": "npm:node@^22")? Both it and the `node` package declare the bin `node`, and
// npm links whichever it reaches last into node_modules/.bin: with the alias installed, `npm run` ran on Node 22.23.3
// instead of 24. So the same registry package the `node` package itself installs (node-<platform>-<arch>, which ships
// the binary) is installed here on first use, with the npm client and its cache, into the toolchain cache outside
// node_modules (scripts/toolchain.mjs says where), and reused by later runs and clones.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installOnce, npmIn } from './toolchain.mjs';

export const NODE22_VERSION = '22.23.3';

/** The path of a Node 22 binary, installed on first call. @throws {Error} when npm cannot install it. */
export function ensureNode22(_root) {
  return ensureNode(NODE22_VERSION);
}

/**
 * The oldest Node the package claims (`engines.node` of package.json, `>=22.12` read as 22.12.0): the package test
 * runs its consumer checks on it too, so the claim is what is tested (issue 28.11).
 * @throws {Error} when `engines.node` is not of the form `>=X.Y[.Z]`.
 */
export function engineFloor(root) {
  const range = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const match = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`engines.node is '${range}': the package test reads only '>=X.Y[.Z]'`);
  return `${match[1]}.${match[2]}.${match[3] ?? 0}`;
}

/** The path of the Node `version` binary, installed on first call. @throws {Error} when npm cannot install it. */
export function ensureNode(version) {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  const name = `${prefix}-${platform}-${process.arch}`;
  const dir = installOnce(`${name}-${version}`, (tmp) => {
    writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'node22-holder', private: true }));
    npmIn(tmp, ['install', '--no-save', `${name}@${version}`]);
  });
  const binary = join(dir, 'node_modules', name, 'bin', platform === 'win' ? 'node.exe' : 'node');
  if (!existsSync(binary)) throw new Error(`npm installed ${name}@${version} but ${binary} is missing`);
  return binary;
}
