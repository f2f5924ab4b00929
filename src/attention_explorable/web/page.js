// Scripts of the textbook page (run once the document is ready):
// builds each waiting explorable or exercise as the reader comes within
// about a screen of it, by pressing its load button; loads a lecture video
// only when one of its sources is clicked; names a notebook's file on a page opened from disk. The page's parts live in Panel's shadow
// roots, so buttons are found by walking the open shadow roots, and clicks by
// the composed path of a click on the document.

import {deepQueryAll} from "./dom.js";

function loadOnApproach() {
  const seen = new Set();
  const started = Date.now();
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      observer.unobserve(entry.target);
      const button = (entry.target.shadowRoot || entry.target).querySelector("button");
      if (button) button.click();
    }
  }, {rootMargin: "900px 0px"});
  // Scan (again, as the page grows) until every button seen has been replaced.
  const tick = () => {
    for (const el of deepQueryAll(document, ".ae-load")) {
      if (!seen.has(el)) { seen.add(el); observer.observe(el); }
    }
    const waiting = [...seen].some((el) => el.isConnected);
    if (waiting || (seen.size === 0 && Date.now() - started < 60000)) setTimeout(tick, 700);
  };
  tick();
  return () => observer.disconnect();
}

// A video block offers one button per source (YouTube, Bilibili, ...): the
// click puts that source's player below the buttons, replacing a player
// chosen before, so a reader whose first choice does not load can take
// another. Nothing is fetched from a video site before such a click; a device that knows it is offline gets
// the block's note (data-offline) instead of a player that would show the browser's error page.
function onVideoClick(event) {
  const button = event.composedPath().find((el) => el.classList && el.classList.contains("ae-video-load"));
  if (!button) return;
  const block = button.closest(".ae-video") || button.parentNode;
  for (const other of block.querySelectorAll(".ae-video-load")) {
    other.setAttribute("aria-pressed", other === button ? "true" : "false");
  }
  let shown;
  if (navigator.onLine === false && block.dataset.offline) {
    shown = document.createElement("p");
    shown.className = "ae-video-frame ae-error";
    shown.setAttribute("role", "status");
    shown.textContent = block.dataset.offline;
  } else {
    shown = document.createElement("iframe");
    shown.src = button.dataset.src;
    shown.allow = "fullscreen";
    shown.title = button.dataset.title || "";
    shown.className = "ae-video-frame";
  }
  // (in the place of the player or note chosen before, else below the buttons)
  const old = block.querySelector(".ae-video-frame");
  if (old) old.replaceWith(shown);
  else (button.closest(".ae-video-choices") || button).after(shown);
}

// A section's notebook is a file beside the page (notebooks/...): on a web server its link saves it,
// but a page opened from a folder on disk (file://) has the browser show it as text instead. There, each
// link's note (hidden otherwise: textbook.notebook_link) says so and names the file, which the reader has.
function noteNotebookFiles() {
  if (window.location.protocol !== "file:") return;
  for (const note of deepQueryAll(document, ".ae-notebook-file")) note.hidden = false;
}

/**
 * The textbook page's scripts (attention_explorable.textbook.page_scripts), run once the
 * document is ready.
 * @param {{load_on_approach: boolean}} args  press each waiting part's load button as it nears
 */
export default function pageScripts({load_on_approach}) {
  if (load_on_approach) loadOnApproach();
  document.addEventListener("click", onVideoClick);
  noteNotebookFiles();
}
