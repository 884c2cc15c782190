/**
 * How late a 10 ms timer fires on this thread from now until stop(): the longest the thread
 * could not answer anything. Servers under test run in the test's process, so a timer here
 * sees what any other request to them would.
 */
export function stallProbe() {
  let worst = 0;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    expected = now + 10;
  }, 10);
  return {
    /** Stops the timer; the worst lateness since the start, in ms. */
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}
