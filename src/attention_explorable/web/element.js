// <attention-explorable name="steps" step="3" temperature="0.05" lang="en">:
// an explorable in any page, from one script tag (attention-explorable.js,
// written by `attention-explorable export`; docs/embedding.md). The script
// finds each explorable's data beside itself, from its own address
// (embed/NAME.LANG.js, a classic script: it loads from file:// too), and
// mounts it in the element's shadow root (web/shadow.js).
import {mountShadow} from "./shadow.js";
import {isElementScript} from "./tag.js";

// Attributes that are the element's own or the page's, never an explorable's state.
const OWN = new Set(["name", "lang", "deep-links", "theme", "id", "class", "style", "title", "hidden", "slot",
                     "part", "tabindex", "dir", "is"]);

/** `lang` as an export's language ("zh", "en"), or null. */
export function languageOf(lang) {
  const tag = String(lang || "").trim().toLowerCase();
  if (tag === "zh" || tag.startsWith("zh-")) return "zh";
  if (tag === "en" || tag.startsWith("en-")) return "en";
  return null;
}

/** The author's initial state: the element's attributes that are not its own, name -> raw value. */
export function initialState(el) {
  const out = {};
  for (const {name, value} of el.attributes) {
    if (!OWN.has(name) && !name.startsWith("data-") && !name.startsWith("aria-") && !name.startsWith("on")) out[name] = value;
  }
  return out;
}

/** The address of this script: `script`'s, or (loaded as a module) the tag that names it. */
function scriptAddress(script) {
  if (script && script.src) return script.src;
  const tag = [...document.querySelectorAll("script[src]")].find(isElementScript);
  return tag ? tag.src : document.baseURI;
}

/**
 * Define <attention-explorable> (once per page: a second script of the kind leaves the first's).
 * @param {{script: HTMLScriptElement|null, names: string[], lang: string, css: string}} options
 *   the script element running now (its address finds the data), the explorables the export holds,
 *   the language used when neither the element nor its page says one, the rules every explorable's
 *   shadow root holds before its own (its data's `shell.css`)
 */
export function defineElement({script, names, lang, css = ""}) {
  if (customElements.get("attention-explorable")) return;
  const base = scriptAddress(script);
  const loads = new Map();
  const load = (name, language) => {
    const key = `${name}.${language}`;
    if (!loads.has(key)) {
      loads.set(key, new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = new URL(`embed/${key}.js`, base).href;
        tag.onload = () => (window.aeEmbeds && window.aeEmbeds[key] ? resolve(window.aeEmbeds[key])
          : reject(new Error(`${tag.src} did not hold ${key}`)));
        tag.onerror = () => reject(new Error(`${tag.src} did not load`));
        document.head.append(tag);
      }));
    }
    return loads.get(key);
  };

  class AttentionExplorable extends HTMLElement {
    connectedCallback() {
      if (this._started) return;
      this._started = true;
      const name = (this.getAttribute("name") || "").trim();
      const asked = this.getAttribute("lang") || (this.parentElement && this.parentElement.closest("[lang]")
        ? this.parentElement.closest("[lang]").getAttribute("lang") : "");
      const language = languageOf(this.getAttribute("lang")) || languageOf(asked) || lang;
      if (!names.includes(name)) {
        this.fail(`name="${name}" is not an explorable of this export; it has ${names.join(", ")}.`);
        return;
      }
      if (this.hasAttribute("lang") && !languageOf(this.getAttribute("lang"))) {
        this.fail(`lang="${this.getAttribute("lang")}" is neither zh nor en.`);
        return;
      }
      load(name, language)
        .then(({shell}) => mountShadow(this, {...shell, css: `${css}\n${shell.css}`}, {
          deepLinks: this.hasAttribute("deep-links"), initial: initialState(this), theme: this.getAttribute("theme")}))
        .then((models) => {
          this.models = models;
          this.dispatchEvent(new CustomEvent("attention-explorable-ready", {bubbles: true}));
        }, (err) => this.fail(err.message));
    }

    /** Say in the page (as text) why this element shows nothing, and in the console. */
    fail(message) {
      console.error("attention-explorable:", message);
      const root = this.shadowRoot || this.attachShadow({mode: "open"});
      const p = document.createElement("p");
      p.setAttribute("role", "alert");
      p.textContent = `attention-explorable: ${message}`;
      root.replaceChildren(p);
    }
  }
  customElements.define("attention-explorable", AttentionExplorable);
}
