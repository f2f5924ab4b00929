#!/usr/bin/env bash
# Installs the Debian packages the browser tests need, only where missing:
# Chromium (driven by Playwright; its own browser download does not work
# offline), CJK fonts (so Chinese text renders in screenshots) and nginx (the
# reverse-proxy check of benchmarks/proxy_check.py runs it from a temporary
# directory; nothing under /etc is used), and Node.js with npm (esbuild bundles
# the explorables' ES modules; tests/test_web.py checks the shipped bundles),
# and PostgreSQL's server programs (the class's tests start a throwaway server
# with initdb/pg_ctl from /usr/lib/postgresql/*/bin in a temporary folder, as
# an unprivileged user; the cluster the package may set up is not used).
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
# The two other engines a class meets (tests/browser/test_engines.py): Firefox, driven over WebDriver BiDi
# by Puppeteer (npm), and Safari's engine, WebKitGTK's MiniBrowser through its WebDriver, on an Xvfb screen.
[ -x /usr/bin/firefox-esr ] || need+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || need+=(webkit2gtk-driver)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
if [ ${#need[@]} -eq 0 ]; then
  echo "system dependencies present: chromium, fonts-noto-cjk, nginx, node, npm, postgresql, firefox-esr, webkit2gtk-driver, xvfb"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing ${need[*]} with apt-get"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
