#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
S=gpu-stage/s4; B=$S/f
export LD_LIBRARY_PATH=$PWD/$S/lib XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/$B/cl CMOCKA_MESSAGE_OUTPUT=stdout
nvidia-smi --query-gpu=name --format=csv,noheader; date -u +%T
$B/tests/test_matmul_tc | grep -E "PASSED|FAILED|tc-wgmma" | head -3
for p in tf32 3xtf32 tf32; do sleep 8; $B/tiledcl bench matmul --size 8192 --precision $p --copy-size 1024 | grep ^matmul | sed 's/ (min/\n    (min/' ; done
