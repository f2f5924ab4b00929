// Drives Debian's firefox-esr over WebDriver BiDi (Puppeteer) through a student's walk of one exported
// page, for tests/browser/test_engines.py: every request that is not a file is aborted and counted.
// Usage: node firefox.mjs FIREFOX URL WALK   (WALK: "head" or "vector"); prints one line of JSON.
import puppeteer from "puppeteer-core";

const [executablePath, url, walk] = process.argv.slice(2);
const browser = await puppeteer.launch({browser: "firefox", executablePath, headless: true, protocol: "webDriverBiDi"});
const out = {aborted: [], errors: []};
try {
  const page = await browser.newPage();
  page.on("pageerror", (err) => out.errors.push(String(err)));
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    if (/^(file|data|blob):/.test(request.url())) request.continue();
    else { out.aborted.push(request.url()); request.abort(); }
  });
  await page.goto(url);
  // The textbook is painted before its script: its parts answer once every module is mounted, not when they show.
  await page.waitForFunction(() => performance.getEntriesByName("ae-page-mounted").length > 0, {timeout: 60000});
  const text = (css) => page.$eval(css, (e) => e.textContent);
  if (walk === "head") {
    await page.waitForSelector(".ae-head-readout");
    await page.click(".ae-head-skip");
    for (let i = 0; i < 3; i++) await page.click(".ae-head-step-button");
    out.after3 = await text(".ae-head-readout");
    await page.click(".ae-head-train");
    await page.waitForFunction(() => +document.querySelector(".ae-head-readout").textContent.match(/\d+/)[0] >= 300,
                               {timeout: 60000});
    await page.click(".ae-head-train");
    out.paused = await text(".ae-head-readout");
  } else {
    await page.waitForSelector(".ae-vector-output");
    out.before = await text(".ae-vector-weights");
    await page.focus(".ae-vector-temperature input[type=range]");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction((b) => document.querySelector(".ae-vector-weights").textContent !== b, {}, out.before);
    out.after = await text(".ae-vector-weights");
  }
  out.version = await browser.version();
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
