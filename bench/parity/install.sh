#!/usr/bin/env bash
# Installs the peers of the parity run (bench/parity.ts) from PyPI, each pinned, each in its own
# virtual environment under the cache (their dependencies conflict: AIPerf pins rich and pandas,
# GuideLLM needs newer datasets), and writes the local tokenizer they load. Idempotent: a venv that
# already has its pinned version is kept. Prints nothing but progress to stderr; exits non-zero
# with one line saying which install failed.
#   bash bench/parity/install.sh [aiperf guidellm inference-perf]   (default: all three)
#   PARITY_CACHE   folder of the venvs and the tokenizer (default /var/cache/k6-llm-bench/parity)
#   PYTHON311      Python 3.11 for AIPerf and GuideLLM (default python3.11)
#   PYTHON312      Python 3.12 for inference-perf, which requires >= 3.12 (default python3.12)
set -euo pipefail

AIPERF_VERSION=0.13.0
GUIDELLM_VERSION=0.8.1
INFERENCE_PERF_VERSION=0.7.0

CACHE="${PARITY_CACHE:-/var/cache/k6-llm-bench/parity}"
PY311="${PYTHON311:-python3.11}"
PY312="${PYTHON312:-python3.12}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$CACHE"

# install NAME PYTHON PACKAGE VERSION
install() {
  local venv="$CACHE/$1" py="$2" pkg="$3" version="$4"
  if [ -x "$venv/bin/pip" ] && [ "$("$venv/bin/pip" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p')" = "$version" ]; then
    echo "parity: $pkg $version already in $venv" >&2
    return 0
  fi
  if ! command -v "$py" >/dev/null; then
    echo "parity: $pkg needs $py, which is not on PATH (set PYTHON311/PYTHON312)" >&2
    return 1
  fi
  echo "parity: installing $pkg==$version into $venv ($("$py" --version))" >&2
  "$py" -m venv "$venv"
  if ! "$venv/bin/pip" install -q "$pkg==$version" >"$venv.pip.log" 2>&1; then
    echo "parity: pip install $pkg==$version failed: $(grep -m1 ERROR "$venv.pip.log" || tail -n1 "$venv.pip.log")" >&2
    return 1
  fi
}

wanted=" ${*:-aiperf guidellm inference-perf} "
# AIPerf's venv also writes the tokenizer below, so it is always there.
install aiperf "$PY311" aiperf "$AIPERF_VERSION"
# GuideLLM requires torch (the CUDA build from PyPI, some GB); it runs without a GPU.
if [[ $wanted == *" guidellm "* ]]; then install guidellm "$PY311" guidellm "$GUIDELLM_VERSION"; fi
# inference-perf publishes no release for Python < 3.12 (every version Requires-Python >= 3.12).
if [[ $wanted == *" inference-perf "* ]]; then install inference-perf "$PY312" inference-perf "$INFERENCE_PERF_VERSION"; fi

# The tokenizer: the simulator's counting rule, its vocabulary from the peers' prompt corpora.
site="$("$CACHE/aiperf/bin/python" -c 'import aiperf, os; print(os.path.dirname(aiperf.__file__))')"
# AIPerf samples its prompts from a bundled text; GuideLLM writes them with Faker's English words.
corpora="$(find "$site" -name '*.txt' -size +20k | head -n 2) $(ls "$CACHE"/guidellm/lib/python*/site-packages/faker/providers/lorem/en_US/__init__.py 2>/dev/null || true)"
# shellcheck disable=SC2086
"$CACHE/aiperf/bin/python" "$HERE/make-tokenizer.py" "$CACHE/tokenizer" $corpora >&2
