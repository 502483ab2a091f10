// The runtimes that only the runtime smoke (scripts/test-runtimes.mjs) and the package test need besides Node 24: Node 22,
// Bun, Deno and workerd (through Miniflare). They are about 520 MB of binaries, so they are not devDependencies: each is
// installed on first use, with the npm client and its cache, from the npm registry, into a cache OUTSIDE node_modules,
// and reused by every later run and clone on the machine. A fresh machine needs nothing installed by hand.
//
// - Bun, Deno and Miniflare (which brings workerd): the locked sub-project test/runtimes/toolchain (its package.json and
//   package-lock.json, with integrity hashes, are copied into the cache and installed with `npm ci`). The cache folder
//   is named after a hash of the lock, so a changed lock installs anew.
// - Node 22: the registry package that ships its binary (node-<platform>-<arch>, the one the `node` package itself
//   installs), see scripts/node22.mjs.
//
// Where: $INVOICING_SDK_TOOLCHAIN_DIR, else $XDG_CACHE_HOME/invoicing-service-sdk, else ~/.cache/invoicing-service-sdk.
// Each install goes to a temporary folder renamed into place when complete, so an interrupted one is never reused.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The folder that holds the installed runtimes (created when missing). */
export function toolchainCache() {
  const dir =
    process.env.INVOICING_SDK_TOOLCHAIN_DIR ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'invoicing-service-sdk');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Installs into `<cache>/<name>` unless a complete install is there: `prepare(tmp)` lays out the folder and installs,
 * then the folder is renamed into place. Returns the folder.
 */
export function installOnce(name, prepare) {
  const cache = toolchainCache();
  const dir = join(cache, name);
  if (existsSync(join(dir, '.complete'))) return dir;
  const tmp = join(cache, `${name}.partial-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    prepare(tmp);
    copyFileSync(join(tmp, 'package.json'), join(tmp, '.complete'));
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(join(dir, '.complete'))) return dir; // another process finished the same install first
    throw error;
  }
  return dir;
}

/** Runs npm in `cwd`, quietly; on failure the error carries npm's output. */
export function npmIn(cwd, args) {
  try {
    execFileSync(npm, [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (error) {
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
}

/**
 * Bun, Deno and Miniflare from the locked sub-project test/runtimes/toolchain, installed on first call.
 * @returns {{ dir: string, bun: string, deno: string, miniflare: string, workerdVersion: string }} binaries' paths, the
 *   path of Miniflare's entry (to import) and workerd's version.
 */
export function ensureToolchain(root) {
  const source = join(root, 'test/runtimes/toolchain');
  const lock = readFileSync(join(source, 'package-lock.json'));
  const manifest = readFileSync(join(source, 'package.json'));
  const hash = createHash('sha256').update(manifest).update(lock).digest('hex').slice(0, 12);
  const dir = installOnce(`runtimes-${hash}`, (tmp) => {
    copyFileSync(join(source, 'package.json'), join(tmp, 'package.json'));
    copyFileSync(join(source, 'package-lock.json'), join(tmp, 'package-lock.json'));
    npmIn(tmp, ['ci']);
  });
  const modules = join(dir, 'node_modules');
  const paths = {
    dir,
    bun: join(modules, 'bun/bin/bun.exe'),
    deno: join(modules, 'deno', process.platform === 'win32' ? 'deno.exe' : 'deno'),
    miniflare: join(modules, 'miniflare/dist/src/index.js'),
    workerdVersion: JSON.parse(readFileSync(join(modules, 'workerd/package.json'), 'utf8')).version,
  };
  for (const path of [paths.bun, paths.deno, paths.miniflare]) {
    if (!existsSync(path)) throw new Error(`${path} is missing after npm ci in ${dir}: delete that folder and rerun`);
  }
  return paths;
}

// `node scripts/toolchain.mjs` installs (if needed) and prints where.
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url).pathname;
  const { ensureNode22 } = await import('./node22.mjs');
  console.log(JSON.stringify({ ...ensureToolchain(root), node22: ensureNode22(root) }, null, 2));
}
