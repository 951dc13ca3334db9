#!/bin/bash
# Fine-tune the detector on a lent GPU machine in one time-boxed call (how v11 was trained).
#
# Renders fresh training scenes with one process per core (seeds 51-64: default mix, 71-72:
# close dice; each scene depends only on its seed and index, so a rerun renders the same ones),
# cut after RENDER_S seconds (finished 25-scene chunks are kept), then fine-tunes INIT (a run
# folder with checkpoint.pt) on CUDA with 15 spawned loader workers, ending at the first epoch
# boundary after STOP_MIN minutes. Results go to $OUT (or ./runs/gpu-out).
#   INIT=runs/detector-v10 RENDER_S=40 EPOCHS=12 STOP_MIN=2.0 bash models/train_gpu.sh
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-runs/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
RENDER_S=${RENDER_S:-40}
pids=()
for s in $(seq 51 64); do
  timeout "$RENDER_S" python3 -m models.data "runs/cache/train_s$s" 2400 "$s" train default \
    2>/dev/null & pids+=($!)
done
for s in 71 72; do
  timeout "$RENDER_S" python3 -m models.data "runs/cache/close_s$s" 1500 "$s" train dice-close \
    2>/dev/null & pids+=($!)
done
wait
log "rendered $(cat runs/cache/train_s5*/truth/*.jsonl runs/cache/train_s6*/truth/*.jsonl \
  runs/cache/close_s7*/truth/*.jsonl | wc -l) scenes"
caches=()
for d in runs/cache/train_s5* runs/cache/train_s6* runs/cache/close_s7*; do
  caches+=(--cache "$d")
done
python3 -m models.train detector --name "${NAME:-gpu1}" --init "${INIT:-runs/detector-v10}" \
  --seed 20 "${caches[@]}" --epochs "${EPOCHS:-12}" --batch 64 --lr 1e-3 --input 320 \
  --workers 15 --device cuda --stop-after "${STOP_MIN:-2.0}" --no-progress \
  --out "$OUT/detector.onnx" 2>&1 | tee "$OUT/train.log"
cp "runs/detector-${NAME:-gpu1}"/{checkpoint.pt,history.jsonl,metrics.json} "$OUT"/
log "end"
