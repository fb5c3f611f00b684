// Drives a notebook in Jupyter Notebook 6 through headless Chromium, as a user would: it opens
// the notebook, picks the kernel from Kernel → Change kernel, runs the code cells one by one with
// the toolbar's Run button, interrupts the cell whose metadata role is "loop" with the toolbar's
// interrupt button, and prints one JSON object of what the page showed (internal/kernel/browser_linux_test.go
// asserts on it). Every wait is on a condition of the page and bounded; on a failure the JSON
// says where it stopped. It records how long each step took.
//
// A cell has ended when the notebook has handled both its execute_reply (the prompt is numbered)
// and the iopub status idle whose parent is the cell's own request (the notebook's
// finished_execute.CodeCell event); the kernel publishes every output of the cell before that
// idle, so its outputs are all on the page then. The kernel indicator is no such signal: it turns
// idle on any request's idle (the server's interrupt_request has one), and the server relays the
// shell and iopub channels independently, so a reply can reach the page before the outputs.
//
// Environment: GOSBI_NB_URL (the notebook's URL, token included), GOSBI_KERNEL (kernelspec
// name), GOSBI_CHROMIUM (browser executable), GOSBI_CHROMIUM_FLAGS (its flags, a JSON array),
// GOSBI_WAIT_MS (the limit of each step) and GOSBI_TOTAL_MS (of the whole run).
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

// done reports whether cell i has ended (see the top of this file) and every image in its
// outputs has loaded, so that the snapshot sees their natural sizes.
function done(i) {
  const cell = Jupyter.notebook.get_cell(i);
  const el = cell.element[0];
  return /\[\d+\]/.test(el.querySelector('.input_prompt').textContent) &&
    cell.last_msg_id !== null && window.gosbiFinished.has(cell.last_msg_id) &&
    [...el.querySelectorAll('.output_area img')].every((img) => img.complete);
}

// visible reports whether the element that sel selects is laid out on the page.
function visible(sel) {
  const el = document.querySelector(sel);
  return el !== null && el.getClientRects().length > 0;
}

// dialogs returns the text of every dialog the page shows.
function dialogs() {
  return [...document.querySelectorAll('.modal')].filter((m) => m.getClientRects().length > 0)
    .map((m) => m.textContent.replace(/\s+/g, ' ').trim().slice(0, 300));
}

// A step is one named stage of the run, bounded by wait; steps records how long each took.
let stepStart = Date.now();
function step(name) {
  if (seen.step) seen.steps.push({ step: seen.step, ms: Date.now() - stepStart });
  seen.step = name;
  stepStart = Date.now();
}

// retry performs act until the page function ok holds, giving each attempt `tryMs` to take
// effect, within the step's limit. It is for gestures the page can miss while it is still
// laying out — a hover before the menu's :hover style applies, a click on a prompt that moved —
// and that are harmless to repeat.
async function retry(page, act, ok, ...args) {
  const tryMs = 2000;
  const end = Date.now() + wait;
  let last = null;
  for (;;) {
    try {
      await act();
      await page.waitForFunction(ok, { polling: 50, timeout: Math.max(1, Math.min(tryMs, end - Date.now())) }, ...args);
      return;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= end) throw new Error(`not done within ${wait} ms (last attempt: ${last && last.message})`);
  }
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: env('GOSBI_CHROMIUM'),
    headless: true,
    pipe: true, // no debugging port: the browser listens on nothing
    timeout: wait,
    protocolTimeout: wait,
    args: [...JSON.parse(env('GOSBI_CHROMIUM_FLAGS')), '--window-size=1200,900'],
  });
  let page = null;
  try {
    page = await browser.newPage();
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
    await page.goto(env('GOSBI_NB_URL'), { waitUntil: 'domcontentloaded' });
    step('load the notebook page');
    await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded &&
      Jupyter.kernelselector && Jupyter.kernelselector._loaded);
    // Record which execute requests have ended on iopub (see done).
    await page.evaluate(() => {
      window.gosbiFinished = new Set();
      Jupyter.notebook.events.on('finished_execute.CodeCell', (e, d) => window.gosbiFinished.add(d.cell.last_msg_id));
    });

    // The notebook names no kernel, so the server starts its default one; once that is ready,
    // switch to ours as a user would.
    step('wait for the default kernel');
    await page.waitForFunction(() => Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() &&
      document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null);
    step('choose the kernel from Kernel → Change kernel');
    const kernel = env('GOSBI_KERNEL');
    const item = `#kernel-submenu-${kernel} a`;
    // Open the menu and hover over Change kernel until its submenu shows, then click the
    // kernel. That click is given to the item itself, not to the point where it was laid out:
    // under load, clicks at points in this menu once ended in the Restart kernel? dialog.
    await retry(page, async () => {
      if (!await page.evaluate(visible, '#menu-change-kernel')) await page.click('#kernellink');
      await page.waitForFunction(visible, { polling: 50, timeout: 2000 }, '#menu-change-kernel');
      await page.hover('#menu-change-kernel');
      await page.waitForFunction(visible, { polling: 50, timeout: 2000 }, item);
      await page.$eval(item, (a) => a.click());
    }, (k) => Jupyter.kernelselector.current_selection === k, kernel);
    step('wait for the chosen kernel');
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
      step(`select cell ${i} (${role})`);
      // Select the cell in command mode by clicking its prompt, then press the toolbar's Run.
      const prompt = await page.evaluateHandle((i) => Jupyter.notebook.get_cell(i).element[0].querySelector('.input_prompt'), i);
      await retry(page, () => prompt.click(), (i) => Jupyter.notebook.get_selected_index() === i, i);
      step(`run cell ${i} (${role})`);
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
        // Let it run for a while (the loop never ends by itself), then stop it with the
        // toolbar's interrupt button.
        await page.waitForFunction(() => document.querySelector('#kernel_indicator_icon.kernel_busy_icon') !== null);
        await new Promise((r) => setTimeout(r, 1500));
        const busy = await page.evaluate((i) => !/\[\d+\]/.test(
          Jupyter.notebook.get_cell(i).element[0].querySelector('.input_prompt').textContent), i);
        const t0 = Date.now();
        await page.click('button[data-jupyter-action="jupyter-notebook:interrupt-kernel"]');
        step(`wait for the interrupted cell ${i} to end`);
        await page.waitForFunction(done, { polling: 50 }, i);
        interrupted = { runningBefore: busy, ranMs: t0 - start, stopMs: Date.now() - t0 };
      } else {
        await page.waitForFunction(done, { polling: 50 }, i);
      }
      const s = await page.evaluate(snapshot, i);
      s.ms = Date.now() - start;
      if (interrupted) s.interrupt = interrupted;
      if (role === 'update') s.updates = await page.evaluate(() => window.gosbiUpdates);
      seen.cells.push(s);
    }
    step('done');
  } finally {
    if (page) seen.dialogs = await page.evaluate(dialogs).catch((e) => [`cannot read the dialogs: ${e.message}`]);
    await browser.close();
  }
}

const deadline = setTimeout(() => {
  seen.failure = `gave up after ${total} ms at: ${seen.step}`;
  console.log(JSON.stringify(seen));
  process.exit(1);
}, total);

seen.steps = [];
seen.step = 'open the notebook';
main().then(() => {
  clearTimeout(deadline);
  console.log(JSON.stringify(seen));
}, (e) => {
  clearTimeout(deadline);
  seen.failure = `${seen.step}: ${e && e.message ? e.message : e}`;
  console.log(JSON.stringify(seen));
  process.exitCode = 1;
});
