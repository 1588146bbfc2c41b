#!/usr/bin/env bash
# Install gno's binaries (gnoland, gnokey, gno, gnoweb) from the Go module proxy at the
# version c4 is pinned to, into a cache folder that later runs reuse.
#
#   scripts/install-gno.sh          install if needed; print the bin folder
#   scripts/install-gno.sh --env    print shell assignments: GNO_BIN=… GNOROOT=… GNOHOME=…
#
# Needs Go >= 1.25.9. The first build takes about two minutes on two cores.
set -euo pipefail

GNO_VERSION="v1.7.1"   # wire.md §5: the nearest served version with session keys
GNO_MODULE="github.com/gnolang/gno"

die() { echo "install-gno: $*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "go not found on PATH (Go >= 1.25.9 is needed to build gno's binaries)"
go_version="$(go env GOVERSION)"            # e.g. go1.26.0
IFS=. read -r major minor patch <<<"${go_version#go}"
patch="${patch%%[!0-9]*}"
if (( major < 1 || (major == 1 && minor < 25) || (major == 1 && minor == 25 && ${patch:-0} < 9) )); then
    die "$go_version is too old: gno $GNO_VERSION needs Go >= 1.25.9"
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/c4cli/gno-$GNO_VERSION"
bin="$cache/bin"
gnoroot="$(go env GOMODCACHE)/$GNO_MODULE@$GNO_VERSION"

if [[ ! -x "$bin/gnoland" || ! -x "$bin/gnokey" || ! -x "$bin/gno" || ! -x "$bin/gnoweb" || ! -d "$gnoroot/gnovm/stdlibs" ]]; then
    mkdir -p "$bin"
    echo "install-gno: building gnoland, gnokey, gno and gnoweb $GNO_VERSION into $bin (about two minutes the first time)" >&2
    GOBIN="$bin" go install \
        "$GNO_MODULE/gno.land/cmd/gnoland@$GNO_VERSION" \
        "$GNO_MODULE/gno.land/cmd/gnokey@$GNO_VERSION" \
        "$GNO_MODULE/gno.land/cmd/gnoweb@$GNO_VERSION" \
        "$GNO_MODULE/gnovm/cmd/gno@$GNO_VERSION"
fi

# A GNOHOME whose package cache holds the packages of gno's examples the realm imports
# (c4cli/gnoland/devnode.py EXAMPLES_IMPORTED), copied from GNOROOT as `gno` would
# download them from gno.land, so that `gno test ./gno/...` downloads nothing. The
# marker is the package's address (gno.land/p/nt/avl/v0's; a test holds it to it).
gnohome="$cache/gnohome"
avl="$gnohome/pkg/mod/gno.land/p/nt/avl/v0"
if [[ ! -f "$gnohome/pkg/mod/.markers/g1zws0kzx0cugf0ajuqhaym7a7zsnqwhq2alnfa4" ]]; then
    mkdir -p "$avl" "$gnohome/pkg/mod/.markers"
    cp -R "$gnoroot/examples/gno.land/p/nt/avl/v0/." "$avl/"
    chmod -R u+w "$avl"
    touch "$gnohome/pkg/mod/.markers/g1zws0kzx0cugf0ajuqhaym7a7zsnqwhq2alnfa4"
fi

if [[ "${1:-}" == "--env" ]]; then
    printf 'GNO_BIN=%q\nGNOROOT=%q\nGNOHOME=%q\n' "$bin" "$gnoroot" "$gnohome"
else
    echo "$bin"
fi
