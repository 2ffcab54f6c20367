#!/usr/bin/env bash
# Build (once) and install the portable llama-cpp-python wheel into the virtualenv (ADR 0019).
#   scripts/engine-wheel.sh [VENV]     (default .venv)
#
# Portable: never -march=native and never AMX (llama.cpp's AMX path faults on virtualised
# Sapphire/Granite Rapids). x86-64 gets the AVX2/FMA/F16C baseline; other architectures their defaults.
# The wheel is cached under a key of everything that shapes the binary (version, flags, CPU
# architecture, Python, compiler), so a wheel built with other flags is never silently reused.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv}"
version="$(sed -n 's/.*"llama-cpp-python==\([^"]*\)".*/\1/p' pyproject.toml)"
[ -n "$version" ] || { echo "engine-wheel: no llama-cpp-python==X pin in pyproject.toml" >&2; exit 2; }

arch="$(uname -m)"
case "$arch" in
  x86_64|amd64)
    flags="-DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_BACKEND_DL=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" ;;
  *)
    flags="-DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_BACKEND_DL=OFF" ;;
esac
# FI_ENGINE_CMAKE_ARGS replaces the flags (for a measured native build in bench/, never the default).
flags="${FI_ENGINE_CMAKE_ARGS:-$flags}"

python="$venv/bin/python"
key_text="llama-cpp-python=$version arch=$arch flags=$flags python=$("$python" -c 'import sys; print(sys.version.split()[0])') cc=$(cc --version 2>/dev/null | head -n1)"
key="$(printf '%s' "$key_text" | sha256sum | cut -c1-16)"
cache="${FI_ENGINE_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/feedback-intelligence/engine-wheels}"
dir="$cache/$key"
marker="$venv/.engine-build"

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$key" ] && [ -n "$(ls "$dir"/llama_cpp_python-*.whl 2>/dev/null)" ] && "$python" -c "import importlib.metadata as m; m.version(\"llama_cpp_python\")" 2>/dev/null; then
  exit 0
fi
if ! ls "$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $version for $arch (portable: $flags); this takes a few minutes, once"
  tmp="$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache.tmp.XXXXXX"; })"
  # --no-cache-dir: pip's own wheel cache keys on the version alone and would hand back another build.
  CMAKE_ARGS="$flags" FORCE_CMAKE=1 "$venv/bin/pip" wheel --quiet --no-cache-dir --no-deps \
    --no-binary llama-cpp-python -w "$tmp" "llama-cpp-python==$version"
  printf '%s\n' "$key_text" > "$tmp/BUILD-KEY.txt"
  mkdir -p "$cache"
  rm -rf "$dir" && mv "$tmp" "$dir"
fi
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$dir"/llama_cpp_python-*.whl
printf '%s' "$key" > "$marker"
echo "llama-cpp-python $version installed from $dir"
