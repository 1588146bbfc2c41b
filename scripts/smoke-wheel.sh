#!/usr/bin/env bash
# Build c4's wheel and sdist, install the wheel in a fresh venv outside the checkout,
# and walk what a user of `pip install c4cli` / pipx does first: --help, the demo,
# a gnoland node started, shown and stopped, `c4 serve` answering one request, and
# the completion script. Every room of the package must be in the wheel for this
# to pass (a module left out is an ImportError here, not in a user's hands).
#
#   scripts/smoke-wheel.sh [PYTHON]     PYTHON: the interpreter to build with (python3)
#
# gnoland comes from $GNO_BIN, else the install script's cache (scripts/install-gno.sh).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/c4-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
say() { echo "smoke-wheel: $*" >&2; }

say "building the wheel and the sdist in $work/dist"
"$python" -m venv "$work/build"
"$work/build/bin/pip" install -q "build>=1.2"
if ! "$work/build/bin/python" -m build --sdist --wheel --outdir "$work/dist" "$root" \
    >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    exit 1
fi

wheel="$(ls "$work"/dist/c4cli-*.whl)"
sdist="$(ls "$work"/dist/c4cli-*.tar.gz)"
# Every Python file of the checkout's package, and the realm's Gno sources, in both.
"$work/build/bin/python" - "$root" "$wheel" "$sdist" <<'EOF'
import pathlib, sys, tarfile, zipfile
root, wheel, sdist = sys.argv[1:]
package = pathlib.Path(root, "c4cli")
wanted = sorted(
    "c4cli/" + path.relative_to(package).as_posix()
    for path in package.rglob("*")
    if path.suffix in (".py", ".gno") and not path.name.endswith("_test.gno")
    and "filetest" not in path.name
)
in_wheel = set(zipfile.ZipFile(wheel).namelist())
in_sdist = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
missing = sorted({w for w in wanted if w not in in_wheel or w not in in_sdist})
assert not missing, f"left out of the wheel or the sdist: {missing}"
print(f"smoke-wheel: {len(wanted)} files in the wheel and the sdist", file=sys.stderr)
EOF

say "installing $(basename "$wheel") in a fresh venv"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
c4="$work/venv/bin/c4"
cd "$work"  # nothing of the checkout is on the path from here

# (Each output is read whole before it is searched: `grep -q` closing a pipe early
# would fail the command writing into it.)
"$c4" --help >/dev/null
[[ "$("$c4" completion bash)" == *_C4_COMPLETE* ]]
C4_HOME="$work/demo-home" "$c4" demo >"$work/demo.txt"
grep -q "replay and check every one with" "$work/demo.txt"

export C4_HOME="$work/home" C4_PASSWORD=""
"$c4" keys add alice >/dev/null 2>&1
"$c4" init >/dev/null
"$c4" serve --listen 127.0.0.1:0 --json >"$work/serve.json" &
serving=$!
for _ in $(seq 100); do [[ -s "$work/serve.json" ]] && break; sleep 0.1; done
"$work/venv/bin/python" - "$work/serve.json" <<'EOF'
import json, sys, urllib.request
url = json.load(open(sys.argv[1]))["url"]
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "status"}).encode()
answer = json.load(urllib.request.urlopen(urllib.request.Request(url, body), timeout=10))
assert answer["result"]["node_info"]["network"] == "dev", answer
EOF
kill -INT "$serving"
wait "$serving"

node_home="$work/node-home"
C4_HOME="$node_home" "$c4" keys add alice >/dev/null 2>&1
C4_HOME="$node_home" "$c4" node start >/dev/null
[[ "$(C4_HOME="$node_home" "$c4" node status)" == *running* ]]
C4_HOME="$node_home" "$c4" node stop >/dev/null
say "ok: --help, completion, demo, serve, node start/status/stop from the wheel"
