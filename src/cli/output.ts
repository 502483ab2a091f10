/** Where a command writes: stdout and stderr in the CLI, buffers in tests. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}
