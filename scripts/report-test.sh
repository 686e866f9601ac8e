#!/usr/bin/env bash
# A real-browser test of `runner report`: installs Debian's chromium (as
# root) when it is missing, runs configs/quick.toml, writes its report.html,
# opens the page in headless chromium, and checks that it loads without a
# single console message and shows every table and picture of the run. It
# saves a screenshot of the page (the CI artifact).
#
# Before trusting the browser's silence, it opens a page that does log to the
# console and checks that the test sees it: a check that cannot fail proves
# nothing.
#
# Usage: scripts/report-test.sh [path/to/runner] [screenshot.png]
#        (defaults: target/release/runner, ci-artifacts/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
runner=$(realpath "${1:-target/release/runner}")
shot=${2:-ci-artifacts/report.png}
[ -x "$runner" ] || { echo "report-test: no runner binary at $runner (cargo build --release)"; exit 1; }

if ! command -v chromium >/dev/null; then
  [ "$(id -u)" = 0 ] || { echo "report-test: chromium is missing; run as root to install it (apt-get install chromium)"; exit 1; }
  echo "== installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q chromium >/dev/null
fi

work=$(mktemp -d /tmp/runner-report.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Headless chromium as root needs --no-sandbox. Each call gets a profile
# directory of its own: with a shared one, a call made while the previous
# browser's helpers still hold the profile lock hands its URL to that dying
# process and prints nothing (seen on a freshly installed CI machine).
browse() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

# Prints the console messages chromium logged while loading page $1, and
# leaves the page's DOM in $work/dom.html. An empty DOM is a browser that
# failed to start, not a page: that is retried once, and then reported with
# chromium's own last words.
console_of() {
  local try
  for try in 1 2; do
    browse --dump-dom "file://$1" 2>"$work/console.log" >"$work/dom.html" || true
    grep -q '<html' "$work/dom.html" && break
    echo "report-test: chromium printed no DOM for $1 (try $try); its stderr ends:" >&2
    tail -n 15 "$work/console.log" >&2
  done
  grep -F ':CONSOLE' "$work/console.log" || true
}

echo "== the console check can fail"
printf '<!DOCTYPE html><html><body><script>console.error("deliberate");</script></body></html>\n' > "$work/noisy.html"
if [ -z "$(console_of "$work/noisy.html")" ]; then
  echo "report-test: FAILED: a page that logs to the console was not caught; the check below would prove nothing"
  exit 1
fi

echo "== a run of configs/quick.toml and its report"
"$runner" --config configs/quick.toml --out "$work/quick" --quiet >/dev/null
"$runner" report "$work/quick"
page="$work/quick/report.html"

echo "== the page in headless chromium"
messages=$(console_of "$page")
if [ -n "$messages" ]; then
  echo "report-test: FAILED: console messages while loading the report:"
  echo "$messages"
  exit 1
fi
missing=0
for f in "$work"/quick/*.csv; do
  id="table-$(basename "$f" .csv)"
  grep -q "id=\"$id\"" "$work/dom.html" || { echo "report-test: table $(basename "$f") is not on the page"; missing=1; }
done
for f in "$work"/quick/*.svg; do
  id="figure-$(basename "$f" .svg)"
  grep -q "id=\"$id\"" "$work/dom.html" || { echo "report-test: picture $(basename "$f") is not on the page"; missing=1; }
done
[ "$missing" = 0 ] || exit 1
tables=$(grep -o '<table' "$work/dom.html" | wc -l)
csvs=$(ls "$work"/quick/*.csv | wc -l)
# One table per CSV, plus the provenance table and the SHA-256 table the
# manifest's hashes fill, which shows each CSV's hash as sha256sum has it.
[ "$tables" -eq $((csvs + 2)) ] || { echo "report-test: $tables tables on the page for $csvs CSVs"; exit 1; }
for f in "$work"/quick/*.csv; do
  hash=$(sha256sum "$f" | cut -d' ' -f1)
  grep -q "$hash" "$work/dom.html" || { echo "report-test: the SHA-256 of $(basename "$f") is not on the page"; exit 1; }
done
if grep -Eq '(src|href)="(https?:)?//' "$page"; then
  echo "report-test: FAILED: the page fetches something from the network"
  exit 1
fi

echo "== screenshot"
mkdir -p "$(dirname "$shot")"
browse --screenshot="$(realpath -m "$shot")" --window-size=1280,2400 "file://$page" 2>/dev/null
[ "$(head -c 4 "$shot" | tail -c 3)" = "PNG" ] || { echo "report-test: no screenshot at $shot"; exit 1; }
echo "report-test: passed: $tables tables and $(ls "$work"/quick/*.svg | wc -l) pictures, no console messages; screenshot at $shot"
