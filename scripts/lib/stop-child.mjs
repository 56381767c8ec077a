/** Stops a child process: `signal` first, SIGKILL after `timeoutMs`; resolves once it has exited. */
export function stopChild(child, signal = 'SIGTERM', timeoutMs = 10_000) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
