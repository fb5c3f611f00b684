// Drives a notebook in Jupyter Notebook 6 through headless Chromium, as a user would: it opens
// the notebook, picks the kernel from Kernel → Change kernel, runs the code cells one by one with
// the toolbar's Run button, interrupts the cell whose metadata role is "loop" with the toolbar's
// interrupt button, and prints one JSON object of what the page showed (kernel/browser_test.go
// asserts on it). Every wait is bounded; on a failure the JSON says where it stopped.
//
// Environment: GOSBI_NB_URL (the notebook's URL, token included), GOSBI_KERNEL (kernelspec
// name), GOSBI_CHROMIUM (browser executable), GOSBI_CHROMIUM_FLAGS (its flags, a JSON array),
// GOSBI_WAIT_MS (the limit of each wait) and GOSBI_TOTAL_MS (of the whole run).
'use strict';
const puppeteer = require('puppeteer-core');

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const wait = Number(process.env.GOSBI_WAIT_MS || 20000);
const total = Number(process.env.GOSBI_TOTAL_MS || 60000);
const seen = { kernel: {}, cells: [], console: [], offhost: [] };

// snapshot returns what a cell shows: its prompt and, per output area, the prompt, the kind
// of output (the output_* classes), the text, images and SVGs.
function snapshot(i) {
  const norm = (s) => s.replace(/\u00a0/g, ' ').trim();
  const cell = Jupyter.notebook.get_cell(i);
  const el = cell.element[0];
  const areas = [...el.querySelectorAll('.output_area')].map((a) => {
    const sub = a.querySelector('.output_subarea');
    const prompt = a.querySelector('.output_prompt');
    return {
      prompt: prompt ? norm(prompt.textContent) : '',
      kind: sub ? [...sub.classList].filter((c) => c.startsWith('output_') && c !== 'output_subarea') : [],
      text: sub ? norm(sub.textContent).slice(0, 2000) : '',
      imgs: [...a.querySelectorAll('img')].map((img) => ({
        src: img.src.slice(0, 22), srcLen: img.src.length,
        width: img.naturalWidth, height: img.naturalHeight,
      })),
      svgs: [...a.querySelectorAll('svg')].map((s) => {
        const r = s.getBoundingClientRect();
        return { width: Math.round(r.width), height: Math.round(r.height), texts: s.querySelectorAll('text').length };
      }),
      probe: [...a.querySelectorAll('.gosbi-probe')].map((p) => p.tagName + ':' + norm(p.textContent)),
    };
  });
  return {
    index: i,
    role: cell.metadata['gosbi-browser'] || '',
    prompt: norm(el.querySelector('.input_prompt').textContent),
    outputs: areas,
  };
}

// done reports whether cell i has finished: a numbered prompt and an idle kernel.
function done(i) {
  const p = Jupyter.notebook.get_cell(i).element[0].querySelector('.input_prompt').textContent;
  return /\[\d+\]/.test(p) && document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null;
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: env('GOSBI_CHROMIUM'),
    headless: true,
    pipe: true, // no debugging port: the browser listens on nothing
    protocolTimeout: wait,
    args: [...JSON.parse(env('GOSBI_CHROMIUM_FLAGS')), '--window-size=1200,900'],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(wait);
    page.on('console', (m) => { if (m.type() === 'error') seen.console.push(m.text().slice(0, 300)); });
    page.on('pageerror', (e) => seen.console.push('pageerror: ' + String(e).slice(0, 300)));
    // The page may load from the notebook server only: anything else is refused and listed.
    const origin = new URL(env('GOSBI_NB_URL')).origin;
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      const u = r.url();
      if (u.startsWith(origin + '/') || u.startsWith('data:') || u === 'about:blank') return r.continue();
      seen.offhost.push(u.slice(0, 200));
      return r.abort();
    });
    seen.step = 'open the notebook';
    await page.goto(env('GOSBI_NB_URL'), { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded &&
      Jupyter.kernelselector && Jupyter.kernelselector._loaded);

    // The notebook names no kernel, so the server starts its default one; once that is ready,
    // switch to ours as a user would.
    seen.step = 'wait for the default kernel';
    await page.waitForFunction(() => Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() &&
      document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null);
    seen.step = 'choose the kernel from Kernel → Change kernel';
    const kernel = env('GOSBI_KERNEL');
    await page.click('#kernellink');
    await page.hover('#menu-change-kernel');
    await page.click(`#kernel-submenu-${kernel} a`);
    await page.waitForFunction((k) => Jupyter.notebook.kernel && Jupyter.notebook.kernel.name === k &&
      Jupyter.notebook.kernel.is_connected() &&
      document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null, {}, kernel);
    seen.kernel = await page.evaluate(() => ({
      name: Jupyter.notebook.kernel.name,
      indicator: document.querySelector('#kernel_indicator .kernel_indicator_name').textContent,
    }));

    const n = await page.evaluate(() => Jupyter.notebook.ncells());
    for (let i = 0; i < n; i++) {
      const role = await page.evaluate((i) => {
        const c = Jupyter.notebook.get_cell(i);
        return c.cell_type === 'code' ? (c.metadata['gosbi-browser'] || '') : null;
      }, i);
      if (role === null) continue;
      seen.step = `run cell ${i} (${role})`;
      // Select the cell in command mode by clicking its prompt, then press the toolbar's Run.
      const prompt = await page.evaluateHandle((i) => Jupyter.notebook.get_cell(i).element[0].querySelector('.input_prompt'), i);
      await prompt.click();
      if (role === 'update') {
        // Record every text the display shows and the most output areas there were at once.
        await page.evaluate((i) => {
          const out = Jupyter.notebook.get_cell(i).element[0].querySelector('.output');
          window.gosbiUpdates = { texts: [], maxAreas: 0 };
          new MutationObserver(() => {
            const areas = out.querySelectorAll('.output_area');
            const u = window.gosbiUpdates;
            u.maxAreas = Math.max(u.maxAreas, areas.length);
            const t = [...areas].map((a) => a.textContent.trim()).join(' | ');
            if (t && u.texts[u.texts.length - 1] !== t) u.texts.push(t);
          }).observe(out, { childList: true, subtree: true, characterData: true });
        }, i);
      }
      const start = Date.now();
      await page.click('button[data-jupyter-action="jupyter-notebook:run-cell-and-select-next"]');
      let interrupted = null;
      if (role === 'loop') {
        // Let it run, then stop it with the toolbar's interrupt button.
        await page.waitForFunction(() => document.querySelector('#kernel_indicator_icon.kernel_busy_icon') !== null);
        await new Promise((r) => setTimeout(r, 1500));
        const busy = await page.evaluate((i) => !/\[\d+\]/.test(
          Jupyter.notebook.get_cell(i).element[0].querySelector('.input_prompt').textContent), i);
        const t0 = Date.now();
        await page.click('button[data-jupyter-action="jupyter-notebook:interrupt-kernel"]');
        seen.step = `wait for the interrupted cell ${i} to end`;
        await page.waitForFunction(done, { polling: 50 }, i);
        interrupted = { runningBefore: busy, ranMs: t0 - start, stopMs: Date.now() - t0 };
      } else {
        await page.waitForFunction(done, { polling: 50 }, i);
      }
      if (role !== 'loop' && role !== 'update') {
        // The prompt and the idle indicator can come before the output is on the page (a
        // large image is still being rendered): give it a bounded while to appear.
        seen.step = `wait for the output of cell ${i} (${role})`;
        await page.waitForFunction((i) => Jupyter.notebook.get_cell(i).element[0].querySelectorAll('.output_area').length > 0,
          { polling: 50, timeout: 5000 }, i).catch(() => {});
      }
      const s = await page.evaluate(snapshot, i);
      s.ms = Date.now() - start;
      if (interrupted) s.interrupt = interrupted;
      if (role === 'update') s.updates = await page.evaluate(() => window.gosbiUpdates);
      seen.cells.push(s);
    }
    seen.step = 'done';
  } finally {
    await browser.close();
  }
}

const deadline = setTimeout(() => {
  seen.failure = `gave up after ${total} ms at: ${seen.step}`;
  console.log(JSON.stringify(seen));
  process.exit(1);
}, total);

main().then(() => {
  clearTimeout(deadline);
  console.log(JSON.stringify(seen));
}, (e) => {
  clearTimeout(deadline);
  seen.failure = `${seen.step}: ${e && e.message ? e.message : e}`;
  console.log(JSON.stringify(seen));
  process.exitCode = 1;
});
