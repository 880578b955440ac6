#!/bin/sh
# Install better-compaction: one binary from a GitHub release, checked against the release's
# SHA256SUMS, installed as `bc` and `better-compaction` into ~/.local/bin (or $BC_INSTALL_DIR).
# Run it again to upgrade; nothing is left half-installed when a step fails.
#
#   curl -fsSL https://github.com/better-compaction/better-compaction/releases/latest/download/install.sh | sh
#   sh install.sh --version 0.2.0 --dir ~/bin
#
# Environment: BC_INSTALL_DIR, BC_VERSION, BC_REPO (owner/name on GitHub), BC_DOWNLOAD_URL (the
# releases base URL, for a mirror: <base>/latest/download/<file>, <base>/download/v<version>/<file>).
set -eu

REPO="${BC_REPO:-better-compaction/better-compaction}"
BASE="${BC_DOWNLOAD_URL:-https://github.com/${REPO}/releases}"
VERSION="${BC_VERSION:-latest}"
# no HOME and no BC_INSTALL_DIR: no default (never /.local/bin)
DIR="${BC_INSTALL_DIR:-${HOME:+$HOME/.local/bin}}"
CLAUDE=ask

say() { printf '%s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Usage: install.sh [--version X.Y.Z] [--dir DIR] [--yes | --no-claude]

Download better-compaction for this OS and architecture, verify it against SHA256SUMS and
install it as 'bc' and 'better-compaction'.

  --version X.Y.Z  that release instead of the latest (or BC_VERSION)
  --dir DIR        install there instead of ~/.local/bin (or BC_INSTALL_DIR)
  --yes            then run 'bc claude install' without asking, if Claude Code is present
  --no-claude      do not offer 'bc claude install'
  --help           this text
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || die "--version needs a version (e.g. --version 0.2.0)"; VERSION=$2; shift 2 ;;
    --version=*) VERSION=${1#*=}; shift ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a folder"; DIR=$2; shift 2 ;;
    --dir=*) DIR=${1#*=}; shift ;;
    --yes | -y) CLAUDE=yes; shift ;;
    --no-claude) CLAUDE=no; shift ;;
    --help | -h) usage; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
  esac
done
[ -n "$DIR" ] || die "no install folder: HOME is not set; pass --dir or set BC_INSTALL_DIR"
VERSION=${VERSION#v}

# --- which binary ---
os=$(uname -s)
arch=$(uname -m)
case "$os" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN*) die "on Windows, run install.ps1 in PowerShell instead" ;;
  *) die "no build for $os; build from source (see the README)" ;;
esac
case "$arch" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no build for the $arch processor; build from source (see the README)" ;;
esac
# an x64 shell under Rosetta on an Apple silicon Mac: take the native build
if [ "$os-$arch" = darwin-x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then arch=arm64; fi
# musl's loader can sit beside glibc (Debian's musl package): the system's own ldd says which libc it runs
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
  die "the Linux builds need glibc; this system uses musl (Alpine?): build from source (see the README)"
fi
ASSET="bc-$os-$arch"

if [ "$VERSION" = latest ]; then URL="$BASE/latest/download"; else URL="$BASE/download/v$VERSION"; fi

# --- download and verify, in a folder removed on any exit ---
TMP=$(mktemp -d 2>/dev/null || mktemp -d -t bc-install)
STAGED=""
trap 'rm -rf "$TMP"; [ -z "$STAGED" ] || rm -f "$STAGED"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fetch() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl --proto '=https,http' -fsSL --retry 2 -o "$2" "$1" 2>"$TMP/err" || {
      say "$(tail -n 1 "$TMP/err")"
      return 1
    }
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" 2>"$TMP/err" || return 1
  else
    die "neither curl nor wget is installed"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else die "no sha256sum, shasum or openssl to verify the download with"
  fi
}

say "downloading $ASSET ($VERSION) from $URL"
fetch "$URL/SHA256SUMS" "$TMP/SHA256SUMS" || die "could not download $URL/SHA256SUMS (no such release, or no network?)"
want=$(awk -v f="$ASSET" '$2 == f || $2 == "*" f { print $1 }' "$TMP/SHA256SUMS")
[ -n "$want" ] || die "the release has no $ASSET (SHA256SUMS does not list it): no build for this platform in $VERSION"
fetch "$URL/$ASSET" "$TMP/$ASSET" || die "could not download $URL/$ASSET"
got=$(sha256 "$TMP/$ASSET")
[ "$got" = "$want" ] || die "checksum mismatch for $ASSET: SHA256SUMS says $want, the download is $got; nothing was installed"
chmod 755 "$TMP/$ASSET"
new=$("$TMP/$ASSET" --version 2>/dev/null) || die "the downloaded $ASSET does not run on this machine; nothing was installed"
case "$new" in better-compaction\ *) ;; *) die "the downloaded $ASSET is not better-compaction (it printed '$new'); nothing was installed" ;; esac

# --- install: both names, each replaced by a rename ---
mkdir -p "$DIR" || die "could not create $DIR"
DIR=$(CDPATH='' cd -- "$DIR" && pwd -P)
old=""
for name in bc better-compaction; do
  if [ -e "$DIR/$name" ] || [ -L "$DIR/$name" ]; then
    # never replace another program's bc (the calculator) or anything that is not ours
    grep -q "better-compaction" "$DIR/$name" 2>/dev/null || die "$DIR/$name exists and is not better-compaction; not replacing it (choose another --dir)"
    [ -n "$old" ] || old=$("$DIR/$name" --version 2>/dev/null || true)
  fi
done
# the copy staged beside the binary goes with the script, whatever ends it (a failure, Ctrl-C, a closed terminal)
STAGED="$DIR/.bc.new.$$"
cp "$TMP/$ASSET" "$DIR/.bc.new.$$" && chmod 755 "$DIR/.bc.new.$$" || {
  rm -f "$DIR/.bc.new.$$"
  die "could not write to $DIR"
}
mv -f "$DIR/.bc.new.$$" "$DIR/bc" || {
  rm -f "$DIR/.bc.new.$$"
  die "could not write $DIR/bc"
}
STAGED=""
ln -s bc "$DIR/.better-compaction.new.$$" && mv -f "$DIR/.better-compaction.new.$$" "$DIR/better-compaction" || {
  rm -f "$DIR/.better-compaction.new.$$"
  die "installed $DIR/bc, but could not write $DIR/better-compaction"
}
if [ -n "$old" ] && [ "$old" != "$new" ]; then say "installed $new (was ${old#better-compaction }) as $DIR/bc and $DIR/better-compaction"
else say "installed $new as $DIR/bc and $DIR/better-compaction"; fi

# --- what `bc` will run ---
on_path=no
first_bc=""
IFS_OLD=$IFS
IFS=:
for d in ${PATH:-}; do
  [ -n "$d" ] && [ -d "$d" ] || continue
  p=$(cd "$d" 2>/dev/null && pwd -P) || continue
  [ "$p" = "$DIR" ] && on_path=yes
  if [ -z "$first_bc" ] && [ -x "$d/bc" ] && [ ! -d "$d/bc" ]; then first_bc="$p/bc"; fi
done
IFS=$IFS_OLD
if [ "$on_path" = no ]; then
  warn "$DIR is not on your PATH; add it to your shell's profile (e.g. ~/.profile or ~/.zshrc):"
  say "  export PATH=\"$DIR:\$PATH\""
elif [ -n "$first_bc" ] && [ "$first_bc" != "$DIR/bc" ]; then
  warn "'bc' runs $first_bc, which comes before $DIR on PATH (the calculator?)."
  say "  Run better-compaction as 'better-compaction', or put $DIR first on PATH: its bc hands calculator use"
  say "  (piped input, -l, math files) over to $first_bc."
fi
BC="$DIR/bc"

# --- Claude Code ---
if [ "$CLAUDE" != no ] && command -v claude >/dev/null 2>&1; then
  run=no
  if [ "$CLAUDE" = yes ]; then run=yes
  elif [ -t 2 ] && (: </dev/tty) 2>/dev/null; then
    printf "Claude Code is installed. Use bc for its compaction now ('bc claude install')? [y/N] " >&2
    read -r answer </dev/tty || answer=""
    case "$answer" in [yY]*) run=yes ;; esac
  fi
  if [ "$run" = yes ]; then "$BC" claude install || warn "'bc claude install' failed; run it again once the message above is dealt with"
  else say "Claude Code: run 'bc claude install' to use bc for its compaction."
  fi
fi
say "Codex: 'bc codex-fork <session id>' writes a compacted fork to resume. Your sessions: 'bc eval' (see 'bc --help')."
