// Figures the benchmarks share.

/** The q-quantile of xs (0.5 the median), the nearest rank below. */
export const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

/** The median of xs. */
export const median = (xs) => quantile(xs, 0.5);

/**
 * A 95% bootstrap interval of median(on) / median(off): both samples are drawn again
 * with replacement, many times, and the middle 95% of the ratios kept. One run's ratio
 * moves by about a tenth on a busy machine; the interval says how far.
 */
export function interval(on, off, draws = 2000) {
  const draw = (xs) => median(Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]));
  const rs = Array.from({ length: draws }, () => draw(on) / draw(off)).sort((a, b) => a - b);
  return [rs[Math.floor(draws * 0.025)], rs[Math.floor(draws * 0.975)]];
}

/** "ratio (95% interval lo-hi)" of the medians of on and off. */
export function ratio(on, off) {
  const [lo, hi] = interval(on, off);
  return `${(median(on) / median(off)).toFixed(2)} (95% interval ${lo.toFixed(2)}-${hi.toFixed(2)})`;
}

/**
 * Loads url in each page in turn (Playwright's or puppeteer's), loads times over, and
 * returns each page's load times. Alternating keeps a drift in the machine's load from
 * favouring either. Each load starts from a quiet browser (settle ms after the last):
 * the recorder finishes writing a page's records after its load event, which a user's
 * next click does not come as fast as a script's. hooks.before(page, k) and
 * hooks.after(page, k, asked), if given, are awaited around each load of page k (asked:
 * when its load was asked for, in ms since the epoch).
 */
export async function loadTimes(pages, url, loads, settle, hooks = {}) {
  const times = pages.map(() => []);
  for (let i = 0; i < loads; i++) {
    for (const [k, page] of pages.entries()) {
      await new Promise((r) => setTimeout(r, settle));
      if (hooks.before) await hooks.before(page, k);
      const t0 = performance.now();
      // A page of hundreds of requests may take longer than Playwright's 30 s on a
      // loaded machine: a slow load is a measure, not a failure.
      await page.goto(url, { waitUntil: "load", timeout: 180000 });
      times[k].push(performance.now() - t0);
      if (hooks.after) await hooks.after(page, k, performance.timeOrigin + t0);
    }
  }
  return times;
}

/** Bytes as megabytes, one decimal. */
export const mb = (n) => (n / 1e6).toFixed(1);

/**
 * The rows of a memory measure while a large response of size bytes was recorded: idle
 * and peak resident memory ({ ext, all }) of the extension's process (named process)
 * and of all the browser's (named browser, with a note on what that counts), the time
 * it took and the session's WARC size.
 */
export function memoryRows({ size, process, browser, note, idle, peak, secs, warcBytes }) {
  return [
    [`memory while recording a ${mb(size)} MB response: extension process (${process}), idle`, `${mb(idle.ext)} MB`, "RSS"],
    ["same: extension process, peak", `${mb(peak.ext)} MB`, `+${mb(peak.ext - idle.ext)} MB over idle (target: flat, under 100 MB over idle)`],
    [`same: all ${browser} processes, idle / peak`, `${mb(idle.all)} / ${mb(peak.all)} MB`, note],
    ["same: time to load and record it", `${secs.toFixed(1)} s`, `${mb(size / secs)} MB/s; session WARC ${mb(warcBytes)} MB`],
  ];
}

/** Prints a benchmark's section for BENCHMARKS.md: its title, command and table. */
export function printSection(title, command, rows) {
  console.log(`## ${title}\n`);
  console.log(`${command}\n`);
  console.log("| measure | value | notes |\n| --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
}

/**
 * Samples resident memory ({ ext, all }, from read) every 200 ms from now on:
 * returns { idle, peak, stop() }, idle the first sample and peak the largest of each
 * since, until stop is called. A sample that fails (a process went away) is skipped.
 * With WEBKEEP_MEMTRACE set, each sample is printed on stderr too.
 */
export function sampleMemory(read) {
  const idle = read();
  const peak = { ...idle };
  const t0 = performance.now();
  const timer = setInterval(() => {
    try {
      const now = read();
      if (process.env.WEBKEEP_MEMTRACE) console.error(`memtrace ${((performance.now() - t0) / 1000).toFixed(1)} s: extension ${mb(now.ext - idle.ext)} MB over idle`);
      peak.ext = Math.max(peak.ext, now.ext);
      peak.all = Math.max(peak.all, now.all);
    } catch { /* a process went away */ }
  }, 200);
  return { idle, peak, stop: () => clearInterval(timer) };
}
