/**
 * Signals while the worker starts. node is PID 1 in the image and ignores a signal it has no handler for, so a pod
 * stopped while node loads the command (KEDA scaling to none right after an install, a rollout) would be killed at
 * the end of its grace period. Until the worker takes signals over, one ends the process at once with 0: nothing
 * has been read. Only `process`, as src/cli.ts imports it before it checks the Node.js version.
 */
const stopAtOnce = (): void => {
  process.exit(0);
};

let installed = false;

/** From the first line of the entry on, for the `run` command; once, however often it is called. */
export function stopOnSignalWhileStarting(): void {
  if (installed) return;
  installed = true;
  process.on('SIGTERM', stopAtOnce);
  process.on('SIGINT', stopAtOnce);
}

/** The worker's own handlers take over (a graceful shutdown). */
export function takeOverSignals(): void {
  installed = false;
  process.off('SIGTERM', stopAtOnce);
  process.off('SIGINT', stopAtOnce);
}
