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
 * next click does not come as fast as a script's.
 */
export async function loadTimes(pages, url, loads, settle) {
  const times = pages.map(() => []);
  for (let i = 0; i < loads; i++) {
    for (const [k, page] of pages.entries()) {
      await new Promise((r) => setTimeout(r, settle));
      const t0 = performance.now();
      await page.goto(url, { waitUntil: "load" });
      times[k].push(performance.now() - t0);
    }
  }
  return times;
}
