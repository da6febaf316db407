# shellcheck shell=bash
# Shared helpers for weir's scripts. Source it; do not run it:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It defines WEIR_REPO (the repository root) and the weir::* functions below.

if [[ -n "${WEIR_LIB_SOURCED:-}" ]]; then
  return 0
fi
WEIR_LIB_SOURCED=1

WEIR_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
export WEIR_REPO

# Debian 12 packages needed to build and test weir (Java and Maven are separate:
# they are needed only for the real Kafka broker, see weir::ensure_packages).
WEIR_BUILD_PACKAGES=(
  g++ meson ninja-build pkg-config ccache
  libcaf-dev librdkafka-dev libsimdjson-dev libsqlite3-dev libspdlog-dev
  libboost-test-dev libcli11-dev libcpp-httplib-dev libedit-dev libssl-dev libpcre2-dev libpq-dev libavro-dev
  libcurl4-openssl-dev
  sqlite3 openssl curl
)
# clang and its runtime libraries (libFuzzer, ASan, UBSan), for the fuzz harnesses
# of tests/fuzz/ (weir::build_fuzz); Debian 12's clang is 14.
WEIR_FUZZ_PACKAGES=(clang libclang-rt-14-dev)
# Debian's Chromium and its ChromeDriver, for the web console's browser tests
# (tests/integration/console_browser.py); no browser is downloaded from elsewhere.
WEIR_BROWSER_PACKAGES=(chromium chromium-driver)

# weir::log MESSAGE... — progress line on stderr.
weir::log() {
  printf '==> %s\n' "$*" >&2
}

# weir::die MESSAGE... — error line on stderr, then exit 1.
weir::die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# weir::usage — print the running script's header comment (line 2 up to `set -euo`)
# and exit 2.
weir::usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[-1]}" >&2
  exit 2
}

# weir::lock_state_dir DIR — serialize the start and stop of one service's state
# directory (two test runs at once, say): an flock on DIR/lock, held on fd 9 until the
# script ends.
weir::lock_state_dir() {
  mkdir -p "$1"
  exec 9>"$1/lock"
  flock -w 120 9 || weir::die "could not lock $1/lock within 120 s"
}

# weir::running_pid PID_FILE MARKER — print the pid PID_FILE names when that process
# runs and its command line contains MARKER (a recycled pid is somebody else's).
weir::running_pid() {
  local pid
  [[ -f "$1" ]] || return 1
  pid="$(<"$1")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2" || return 1
  printf '%s\n' "$pid"
}

# weir::_as_root CMD... — run CMD as root (directly when root, else through sudo).
weir::_as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    weir::die "need root to run '$*' (not root and sudo is not installed)"
  fi
}

# weir::_installed PKG — true when the Debian package PKG is installed.
weir::_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

# weir::ensure_packages [build] [java] [fuzz] [browser] [pip] — install the missing Debian packages.
#   build: compiler, meson, ninja, ccache and the libraries weir links against;
#   fuzz:  clang with libFuzzer (WEIR_FUZZ_PACKAGES), for bench/fuzz.sh;
#   browser: headless Chromium and ChromeDriver (WEIR_BROWSER_PACKAGES), for the console's tests;
#   java:  a Java 17 runtime and Maven, for the real Kafka broker (scripts/kafka.sh) and
#          the schema registry's build (scripts/schema-registry.sh; Debian's runtime
#          carries the compiler module, so no JDK package is needed);
#          installed only when `java` or `mvn` is missing from PATH;
#   pip:   pip for the python3 on PATH, when it has none (weir::ensure_python_packages).
# With no argument, both. apt-get runs only when something is missing, and
# `apt-get update` only when the package lists are empty or an install failed.
weir::ensure_packages() {
  local groups=("$@") missing=() group pkg
  [[ ${#groups[@]} -gt 0 ]] || groups=(build java)
  for group in "${groups[@]}"; do
    case "$group" in
      build)
        for pkg in "${WEIR_BUILD_PACKAGES[@]}"; do
          weir::_installed "$pkg" || missing+=("$pkg")
        done
        ;;
      fuzz)
        for pkg in "${WEIR_BUILD_PACKAGES[@]}" "${WEIR_FUZZ_PACKAGES[@]}"; do
          weir::_installed "$pkg" || missing+=("$pkg")
        done
        ;;
      browser)
        for pkg in "${WEIR_BROWSER_PACKAGES[@]}"; do
          weir::_installed "$pkg" || missing+=("$pkg")
        done
        ;;
      java)
        command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
        command -v mvn >/dev/null 2>&1 || missing+=(maven)
        ;;
      pip)
        python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
        ;;
      *) weir::die "weir::ensure_packages: unknown group '$group' (build|java|fuzz|browser|pip)" ;;
    esac
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    weir::log "packages: all present (${groups[*]})"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    weir::die "missing packages (${missing[*]}) and no apt-get: install them by hand"
  weir::log "packages: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    weir::log "packages: apt-get update (no package lists yet)"
    weir::_as_root apt-get update -q
  fi
  if ! weir::_as_root apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    weir::log "packages: install failed; apt-get update and retry"
    weir::_as_root apt-get update -q
    weir::_as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# Python packages that the integration tests' scripts import, as NAME==VERSION, for
# the python3 on PATH (the one meson's find_program('python3') runs). fastavro decodes
# Confluent-framed Avro independently of weir; Debian 12 does not package it.
WEIR_PYTHON_PACKAGES=(fastavro==1.12.2)

# weir::ensure_python_packages — pip-install (from PyPI) those of WEIR_PYTHON_PACKAGES
# that python3 does not have at that version; nothing runs when all are there.
weir::ensure_python_packages() {
  local missing=() spec
  for spec in "${WEIR_PYTHON_PACKAGES[@]}"; do
    python3 - "${spec%%==*}" "${spec#*==}" 2>/dev/null <<'PY' || missing+=("$spec")
import importlib.metadata, sys
sys.exit(importlib.metadata.version(sys.argv[1]) != sys.argv[2])
PY
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    weir::log "python packages: all present (${WEIR_PYTHON_PACKAGES[*]})"
    return 0
  fi
  weir::ensure_packages pip
  weir::log "python packages: pip install ${missing[*]}"
  # Debian's own python3 refuses pip installs outside a virtualenv (PEP 668); the
  # tests run that interpreter itself, so the packages go into it all the same.
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "${missing[@]}" ||
    weir::die "pip could not install ${missing[*]}"
}

# Toxiproxy (github.com/Shopify/toxiproxy/v2), the TCP proxy the network fault suites
# put between weir and the broker. v2.12.0 needs Go 1.23 (its go.mod), newer than
# Debian 12's golang-go (1.19): the Go on PATH, else /usr/local/go, is used.
WEIR_TOXIPROXY_VERSION=v2.12.0

# weir::go_toolchain — print the path of a Go $WEIR_GO_TOOLCHAIN toolchain's `go`,
# fetched once into .cache/go-toolchain/ from the Go module proxy, which serves Go's
# own releases as modules (golang.org/toolchain, what GOTOOLCHAIN downloads).
WEIR_GO_TOOLCHAIN="${WEIR_GO_TOOLCHAIN:-1.23.12}"
weir::go_toolchain() {
  local arch dir version zip
  case "$(uname -m)" in
    x86_64) arch=amd64 ;;
    aarch64) arch=arm64 ;;
    *) weir::die "no Go toolchain for $(uname -m) on the Go module proxy that weir knows of" ;;
  esac
  version="v0.0.1-go$WEIR_GO_TOOLCHAIN.linux-$arch"
  dir="$WEIR_REPO/.cache/go-toolchain/$version"
  if [[ ! -x "$dir/bin/go" ]]; then
    zip="$WEIR_REPO/.cache/go-toolchain/$version.zip"
    mkdir -p "$WEIR_REPO/.cache/go-toolchain"
    weir::log "go: fetching Go $WEIR_GO_TOOLCHAIN from the Go module proxy (golang.org/toolchain@$version)"
    curl -fsSL --retry 3 -o "$zip.part" "https://proxy.golang.org/golang.org/toolchain/@v/$version.zip" ||
      weir::die "could not fetch golang.org/toolchain@$version from proxy.golang.org"
    mv "$zip.part" "$zip"
    # A module zip holds golang.org/toolchain@VERSION/... and no file modes.
    python3 - "$zip" "$dir" <<'PY' || weir::die "could not unpack $zip"
import os, shutil, sys, zipfile
zip_path, target = sys.argv[1], sys.argv[2]
tmp = target + ".tmp"
shutil.rmtree(tmp, ignore_errors=True)
with zipfile.ZipFile(zip_path) as z:
    first = z.namelist()[0]
    prefix = first[: first.index("/", first.index("@")) + 1]
    for name in z.namelist():
        if name.endswith("/") or not name.startswith(prefix):
            continue
        out = os.path.join(tmp, name[len(prefix):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(name) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
        if "/bin/" in "/" + name[len(prefix):] or "/pkg/tool/" in "/" + name[len(prefix):]:
            os.chmod(out, 0o755)
shutil.rmtree(target, ignore_errors=True)
os.rename(tmp, target)
PY
    rm -f "$zip"
  fi
  printf '%s\n' "$dir/bin/go"
}

# weir::ensure_toxiproxy — print the path of toxiproxy-server, building it first with
# `go install` (from the Go module proxy) into .cache/toxiproxy/VERSION/ when it is
# not there yet. Idempotent and safe to run concurrently (a lock, then a second look).
weir::ensure_toxiproxy() {
  local dir="$WEIR_REPO/.cache/toxiproxy/$WEIR_TOXIPROXY_VERSION" go have need
  local bin="$dir/toxiproxy-server"
  if [[ -x "$bin" ]]; then
    printf '%s\n' "$bin"
    return 0
  fi
  mkdir -p "$dir"
  (
    flock -w 600 9 || weir::die "could not lock $dir/lock within 600 s"
    [[ -x "$bin" ]] && exit 0
    go="$(command -v go || true)"
    [[ -n "$go" || ! -x /usr/local/go/bin/go ]] || go=/usr/local/go/bin/go
    # Go keeps its caches under $HOME; without one (a bare CI environment), in .cache.
    if [[ -z "${HOME:-}" ]]; then
      export GOPATH="${GOPATH:-$WEIR_REPO/.cache/go}" GOCACHE="${GOCACHE:-$WEIR_REPO/.cache/go/build}"
    fi
    have="$([[ -z "$go" ]] || "$go" env GOVERSION)"
    need=go1.23
    if [[ -z "$have" || "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]]; then
      go="$(weir::go_toolchain)" || exit 1 # none, or Debian 12's 1.19: too old for Toxiproxy
      have="$("$go" env GOVERSION)"
    fi
    weir::log "toxiproxy: go install github.com/Shopify/toxiproxy/v2/cmd/server@$WEIR_TOXIPROXY_VERSION ($have)"
    # The module cache stays writable (-modcacherw) so that `rm -rf` can clear it.
    GOBIN="$dir/tmp.$$" GOFLAGS="${GOFLAGS:-} -modcacherw" GOTOOLCHAIN=local \
      "$go" install "github.com/Shopify/toxiproxy/v2/cmd/server@$WEIR_TOXIPROXY_VERSION" >&2 ||
      weir::die "go install of Toxiproxy $WEIR_TOXIPROXY_VERSION failed (output above)"
    mv "$dir/tmp.$$/server" "$bin"
    rmdir "$dir/tmp.$$"
  ) 9>"$dir/lock" || return 1
  printf '%s\n' "$bin"
}

# weir::_options_differ BUILDDIR OPTION... — true unless every -Dname=value OPTION
# already has that value in BUILDDIR (`meson configure` always regenerates, so it
# is skipped when nothing would change).
weir::_options_differ() {
  python3 - "$@" <<'PY'
import json, subprocess, sys
current = {o["name"]: o["value"] for o in json.loads(subprocess.check_output(
    ["meson", "introspect", "--buildoptions", sys.argv[1]]))}
for arg in sys.argv[2:]:
    if not arg.startswith("-D") or "=" not in arg:
        sys.exit(0)
    name, want = arg[2:].split("=", 1)
    have = current.get(name)
    if isinstance(have, bool):
        have = "true" if have else "false"
    elif isinstance(have, list):
        have = ",".join(have)
    if str(have) != want:
        sys.exit(0)
sys.exit(1)
PY
}

# Paths under the repository are hashed relative to it, and the build directory is
# not hashed: the same sources compile to a cache hit whatever directory they were
# cloned into. (A debug object then names the first clone's build directory as its
# compilation directory; only a debugger reading it would notice.)
weir::_ccache_anywhere() {
  export CCACHE_BASEDIR="$WEIR_REPO" CCACHE_NOHASHDIR=1
}

# weir::build [BUILDDIR] [MESON_OPTION...] — configure (first time only) and compile.
# BUILDDIR defaults to build/ (relative paths are taken from the repository root).
# Options (e.g. -Dwerror=true) are given to `meson setup` on the first run and to
# `meson configure` afterwards, so an existing build directory picks them up; meson
# reconfigures by itself when a meson.build changes. Wraps are never downloaded
# (--wrap-mode=nodownload): dependencies come from the Debian packages. Meson uses
# ccache on its own when it is installed; weir::_ccache_anywhere lets a clone anywhere
# (CI's clean one, a fresh one under /tmp) reuse what another clone compiled.
weir::build() {
  weir::_ccache_anywhere
  local builddir="${1:-build}"
  [[ $# -gt 0 ]] && shift
  [[ "$builddir" == /* ]] || builddir="$WEIR_REPO/$builddir"
  if [[ ! -f "$builddir/meson-private/coredata.dat" ]]; then
    weir::log "build: meson setup ${builddir#"$WEIR_REPO"/} $*"
    meson setup "$builddir" "$WEIR_REPO" --wrap-mode=nodownload "$@"
  elif [[ $# -gt 0 ]] && weir::_options_differ "$builddir" "$@"; then
    weir::log "build: meson configure ${builddir#"$WEIR_REPO"/} $*"
    meson configure "$builddir" "$@"
  fi
  weir::log "build: meson compile -C ${builddir#"$WEIR_REPO"/}"
  meson compile -C "$builddir"
}

# weir::build_fuzz [BUILDDIR] — the libFuzzer harnesses of tests/fuzz/, in a clang
# build directory of their own (default build-fuzz/; the gcc build/ is untouched):
# libFuzzer's coverage, ASan and UBSan, -O1 with line tables (fast to compile, and
# stack traces still name lines). Only the `fuzz` target and what it links are built.
weir::build_fuzz() {
  weir::_ccache_anywhere
  local builddir="${1:-build-fuzz}"
  [[ "$builddir" == /* ]] || builddir="$WEIR_REPO/$builddir"
  if [[ ! -f "$builddir/meson-private/coredata.dat" ]]; then
    weir::log "build: meson setup ${builddir#"$WEIR_REPO"/} (clang, libFuzzer, ASan, UBSan)"
    CC=clang CXX=clang++ meson setup "$builddir" "$WEIR_REPO" --wrap-mode=nodownload -Dfuzz=enabled \
      -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=custom -Doptimization=1 -Ddebug=false \
      -Dcpp_args=-gline-tables-only
  fi
  weir::log "build: meson compile -C ${builddir#"$WEIR_REPO"/} fuzz"
  meson compile -C "$builddir" fuzz
}
