#!/usr/bin/env bash
# Session 4: tf32 tile bands on the H100 (and the H200).
cd "$(dirname "$0")/../.."
S=gpu-stage/s4; B=$S/f
export LD_LIBRARY_PATH=$PWD/$S/lib XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/$B/cl
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do for g in 8 16 32 4; do
  sleep 6; echo "GROUP_M=$g $(TILEDCL_TC_OPTIONS=-DWG_GROUP_M=$g $B/tiledcl bench matmul --size 8192 --precision tf32 --copy-size 1024 | grep ^matmul | cut -c1-110)"
done; done
