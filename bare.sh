#!/bin/bash
out=$1
/work/h46/build/bench_bare_mhd 2 /tmp/h46p/ans.json application/json > /tmp/h46p/bare.port &
pid=$!
sleep 1; port=$(head -1 /tmp/h46p/bare.port)
wrk -t2 -c16 -d2s -s /tmp/h46p/wrk.lua http://127.0.0.1:$port/v1/chat/completions > /dev/null
for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(grep ctxt $t/status | tr '\n' ' ')"; done > $out.ctx0
perf stat -e context-switches,task-clock -p $pid -o $out.stat -- sleep 6 &
ps=$!
wrk -t2 -c16 -d5s -s /tmp/h46p/wrk.lua http://127.0.0.1:$port/v1/chat/completions > $out.wrk
wait $ps
for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(grep ctxt $t/status | tr '\n' ' ')"; done > $out.ctx1
kill $pid
