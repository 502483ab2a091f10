// Cold import in a fresh process: imports TARGET (nothing for bare node), then prints the CPU this process used
// since it started (user + system, µs) and the wall time since its time origin (ms).
const TARGET = process.env.TARGET ?? '';
if (TARGET !== '') await import(TARGET);
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ cpuUs: cpu.user + cpu.system, wallMs: performance.now() })}\n`);
