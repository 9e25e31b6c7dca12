#!/bin/bash
# for up to $1 seconds: whenever the load average is under 0.8, one round of the five tiles + one paired run
end=$((SECONDS + $1))
while [ $SECONDS -lt $end ]; do
  l=$(cut -d' ' -f1 /proc/loadavg)
  if awk "BEGIN{exit !($l < 0.8)}"; then
    /tmp/ta_exp/cpubench.sh 1 >> /tmp/ta_exp/cpu-runs.txt 2>&1
    (cd /work/wt-tileavg && echo "$(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)" && TILEDCL_KERNEL_PATH=$PWD/cl build/tests/bench_tile_avg 4096 auto 21 | tail -5) >> /tmp/ta_exp/cpu-paired.txt 2>&1
  else
    sleep 15
  fi
done
