#!/usr/bin/env bash
# Provides a working llama-server and two GGUF models (target.gguf, draft.gguf) for the
# real-engine tests. Idempotent: a second run only checks and prints READY.
#
# The binary, in order of preference:
#   1. $LLAMA_SERVER (path to a llama-server binary)
#   2. llama-server on PATH
#   3. a Debian sid chroot in ${LLAMA_CHROOT:-/var/cache/k6-llm-bench/llama-sid}, built with
#      debootstrap (Debian bookworm has no llama.cpp; sid's needs a newer libc than the host's).
# Models go to ${LLAMA_MODELS:-/var/cache/k6-llm-bench/models}; they are regenerated when absent
# or when make-models.py changed (its sha256 is stored beside them). They are made with the host's
# python3 when it has the gguf and numpy modules, else with the chroot's.
#
# Exit codes: 0 ready (last stdout line: "READY {json}"), 3 unavailable here (one-line reason on
# stderr: the tests skip with it), anything else a real failure.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHROOT=${LLAMA_CHROOT:-/var/cache/k6-llm-bench/llama-sid}
CHROOT=${CHROOT%/}
MODELS=${LLAMA_MODELS:-/var/cache/k6-llm-bench/models}
MODELS=${MODELS%/}
MIRROR=${LLAMA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES=llama.cpp-tools,python3-gguf,python3-numpy,ca-certificates
MARKER="$CHROOT/.k6-llm-bench-ready"
GENERATOR="$HERE/make-models.py"
CHROOT_ENV=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)

say() { echo "[real-engine setup ${SECONDS}s] $*"; }
unavailable() {
  echo "llama-server unavailable: $*" >&2
  exit 3
}

# One setup at a time (two test files may start at once).
if command -v flock >/dev/null; then
  exec 9>"${TMPDIR:-/tmp}/k6-llm-bench-setup.lock"
  flock -w 900 9 || unavailable "another setup.sh held its lock for 15 minutes"
fi

need_root() {
  [ "$(id -u)" = 0 ] || unavailable "$1 needs root (set LLAMA_SERVER to a llama-server binary and use a python3 with the gguf and numpy modules)"
}

unmount_chroot() {
  local m
  for m in models dev/pts dev sys proc; do
    if mountpoint -q "$CHROOT/$m" 2>/dev/null; then umount "$CHROOT/$m" || umount -l "$CHROOT/$m" || true; fi
  done
}

mount_chroot() {
  mountpoint -q "$CHROOT/proc" || mount -t proc proc "$CHROOT/proc"
  mountpoint -q "$CHROOT/dev" || mount --bind /dev "$CHROOT/dev"
  mkdir -p "$CHROOT/models"
  mountpoint -q "$CHROOT/models" || mount --bind "$MODELS" "$CHROOT/models"
}

build_chroot() {
  need_root "building the Debian sid chroot"
  if ! command -v debootstrap >/dev/null; then
    command -v apt-get >/dev/null || unavailable "no llama-server, no debootstrap and no apt-get to install it"
    say "installing debootstrap (apt-get)"
    apt-get update -qq >/dev/null 2>&1 || unavailable "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
      unavailable "apt-get install debootstrap failed"
  fi
  if [ -e "$CHROOT" ]; then
    say "removing the incomplete chroot $CHROOT"
    unmount_chroot
    local m
    for m in models dev/pts dev sys proc; do
      if mountpoint -q "$CHROOT/$m" 2>/dev/null; then
        echo "setup.sh: $CHROOT/$m is still mounted: not deleting $CHROOT" >&2
        exit 1
      fi
    done
    rm -rf --one-file-system "$CHROOT"
  fi
  mkdir -p "$(dirname "$CHROOT")"
  local log="$(dirname "$CHROOT")/debootstrap.log"
  say "debootstrap sid into $CHROOT (about 1.5 min, 300 MB; log: $log)"
  if ! debootstrap --variant=minbase --include="$PACKAGES" sid "$CHROOT" "$MIRROR" >"$log" 2>&1; then
    unmount_chroot
    tail -n 5 "$log" >&2
    unavailable "debootstrap of Debian sid failed (see $log)"
  fi
  unmount_chroot
  mkdir -p "$CHROOT/models"
  [ -x "$CHROOT/usr/bin/llama-server" ] || unavailable "the sid chroot has no /usr/bin/llama-server"
  mount_chroot
  local version
  version=$(chroot "$CHROOT" "${CHROOT_ENV[@]}" /usr/bin/llama-server --version 2>&1 | grep -m1 -i version || true)
  [ -n "$version" ] || unavailable "llama-server in the chroot does not run"
  say "llama-server in the chroot: $version"
  date -u +%FT%TZ >"$MARKER"
}

# --- where llama-server comes from ---
MODE=host
SERVER=""
if [ -n "${LLAMA_SERVER:-}" ]; then
  [ -x "$LLAMA_SERVER" ] || unavailable "LLAMA_SERVER=$LLAMA_SERVER is not an executable file"
  SERVER=$LLAMA_SERVER
  say "llama-server from LLAMA_SERVER: $SERVER"
elif command -v llama-server >/dev/null; then
  SERVER=$(command -v llama-server)
  say "llama-server from PATH: $SERVER"
else
  MODE=chroot
  SERVER=/usr/bin/llama-server
fi

# --- which python makes the models ---
PYTHON=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import gguf, numpy' >/dev/null 2>&1; then
    PYTHON=$p
    break
  fi
done

USE_CHROOT=no
if [ "$MODE" = chroot ] || [ -z "$PYTHON" ]; then USE_CHROOT=yes; fi

mkdir -p "$MODELS" 2>/dev/null || unavailable "cannot create $MODELS (set LLAMA_MODELS)"

if [ "$USE_CHROOT" = yes ]; then
  if [ -f "$MARKER" ] && [ -x "$CHROOT/usr/bin/llama-server" ]; then
    say "chroot ready: $CHROOT (built $(cat "$MARKER"))"
  else
    build_chroot
  fi
  need_root "mounting /proc, /dev and the models into the chroot"
  mount_chroot
fi

# --- models ---
HASH=$(sha256sum "$GENERATOR" | cut -d' ' -f1)
if [ -f "$MODELS/target.gguf" ] && [ -f "$MODELS/draft.gguf" ] && [ "$(cat "$MODELS/make-models.sha256" 2>/dev/null)" = "$HASH" ]; then
  say "models ready: $MODELS (make-models.py $(echo "$HASH" | cut -c1-12))"
else
  say "generating target.gguf and draft.gguf in $MODELS"
  rm -f "$MODELS/make-models.sha256"
  if [ -n "$PYTHON" ]; then
    "$PYTHON" "$GENERATOR" "$MODELS"
  else
    chroot "$CHROOT" "${CHROOT_ENV[@]}" /usr/bin/python3 - /models <"$GENERATOR"
  fi
  echo "$HASH" >"$MODELS/make-models.sha256"
  say "models written: $(du -sh "$MODELS" | cut -f1)"
fi

if [ "$MODE" = chroot ]; then
  printf 'READY {"mode":"chroot","root":"%s","server":"%s","models":"/models","hostModels":"%s"}\n' "$CHROOT" "$SERVER" "$MODELS"
else
  printf 'READY {"mode":"host","root":null,"server":"%s","models":"%s","hostModels":"%s"}\n' "$SERVER" "$MODELS" "$MODELS"
fi
