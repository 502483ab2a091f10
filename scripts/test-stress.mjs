// npm run test:stress: runs `npm test` while busy-loop processes load every core, to show that the suite does not
// depend on how busy the machine is (issue 27). One busy process per core by default; STRESS_PROCS=<n> changes it.
// The busy processes are stopped at the end, pass or fail, and on Ctrl+C or SIGTERM; each one also exits by itself
// when this script is gone (even after a SIGKILL), so none is ever left spinning.
//
// For development, arguments narrow what runs under load:
//   npm run test:stress -- --only-vitest test/redis     `vitest run test/redis` instead of the whole `npm test`
//   npm run test:stress -- --run <command> [args...]    any command
// The command gets STRESS_PIDS (the busy processes' ids, comma-separated) in its environment.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const args = process.argv.slice(2);
let command = ['npm', 'test'];
if (args[0] === '--only-vitest') command = ['npx', 'vitest', 'run', ...args.slice(1)];
else if (args[0] === '--run' && args.length > 1) command = args.slice(1);
else if (args.length > 0) {
  console.error(
    `test:stress: unknown arguments ${JSON.stringify(args)}; use --only-vitest [vitest args] or --run <command> [args]`,
  );
  process.exit(2);
}
const procsText = process.env.STRESS_PROCS ?? String(availableParallelism());
const procs = Number(procsText);
if (!Number.isInteger(procs) || procs < 0) {
  console.error(`test:stress: STRESS_PROCS must be a whole number >= 0; got ${JSON.stringify(procsText)}`);
  process.exit(2);
}

// Spins in 50 ms slices; between slices it exits if its parent (this script, named by its id: it may be gone before
// the busy process has started) is gone.
const SPIN = `const parent = ${process.pid};
const spin = () => { for (const end = Date.now() + 50; Date.now() < end; ); if (process.ppid !== parent) process.exit(0); setImmediate(spin); };
spin();`;
const busy = Array.from({ length: procs }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', resolve));

let test;
let stopping;
/** Stops the test command (its whole process group) and the busy processes, and waits for them to exit. */
function stop(signal = 'SIGTERM') {
  stopping ??= (async () => {
    if (test && test.exitCode === null && test.signalCode === null) {
      try {
        process.kill(-test.pid, signal);
      } catch {}
    }
    for (const child of busy) child.kill('SIGKILL');
    await Promise.all([...busy, ...(test ? [test] : [])].map(exited));
  })();
  return stopping;
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.on(signal, async () => {
    console.error(`\ntest:stress: ${signal}: stopping the test and the ${procs} busy process(es)`);
    await stop(signal);
    process.exit(code);
  });
}

const started = Date.now();
console.log(`test:stress: ${command.join(' ')} with ${procs} busy process(es) on ${availableParallelism()} core(s)`);
// Its own process group, so that a signal reaches everything it started (vitest's workers, redis-server, browsers).
test = spawn(command[0], command.slice(1), {
  stdio: 'inherit',
  detached: true,
  env: { ...process.env, STRESS_PIDS: busy.map((child) => child.pid).join(',') },
});
const [code, signal] = await new Promise((resolve) => {
  test.once('error', (error) => {
    console.error(`test:stress: could not start ${command[0]}: ${error.message}`);
    resolve([127, null]);
  });
  test.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
});
await stop();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const outcome = code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
console.log(`test:stress: ${outcome} in ${seconds} s under ${procs} busy process(es)`);
process.exit(code ?? 1);
