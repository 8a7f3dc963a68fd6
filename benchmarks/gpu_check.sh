#!/usr/bin/env bash
# The GPU checks of docs/gpu.md in one go, on a machine with a CUDA GPU, cupy and torch:
#   1. the core test suite with device=gpu:0 selected for every test (TOMLRUN_TEST_DEVICE),
#   2. the tutorial CNN trained for one epoch by the runner on gpu:0 and on the CPU,
#   3. benchmarks/throughput.py against torch eager on the same GPU at batch 100 and 1024,
#   4. (dist) two MPI ranks sharing gpu:0 in one data-parallel runner job.
# Logs go to $OUT (or ./gpu-check-logs); the summary lines are printed last.
#   bash benchmarks/gpu_check.sh [tests|runner|bench|dist ...]   (default: all four)
set -u
cd "$(dirname "$0")/.."
LOGS=${OUT:-gpu-check-logs}
mkdir -p "$LOGS"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
STEPS=${STEPS:-tests runner bench dist}
[ $# -gt 0 ] && STEPS="$*"
summary=()

for step in $STEPS; do
  case $step in
  tests)
    workers=$($PY -c "import xdist" 2>/dev/null && echo "-n ${WORKERS:-8}")
    TOMLRUN_TEST_DEVICE=gpu:0 timeout "${TEST_TIMEOUT:-300}" $PY -m pytest tests/core -q \
      -p no:cacheprovider --tb=short $workers >"$LOGS/tests.log" 2>&1
    summary+=("tests: $(tail -n 1 "$LOGS/tests.log")")
    grep -E "^(FAILED|ERROR)" "$LOGS/tests.log" | head -n 40
    ;;
  runner)
    for dev in gpu:0 cpu; do
      name=${dev/:/}
      timeout 300 $PY -m runner device=$dev tracking.enabled=false trainer.checkpoint=false trainer.epochs=1 \
        trainer.progress=false "hydra.run.dir=$LOGS/run-$name" >"$LOGS/runner-$name.log" 2>&1
      summary+=("runner $dev: $(grep -E 'test loss|valid/acc' "$LOGS/runner-$name.log" \
        | tr '\n' ' ' || tail -n 3 "$LOGS/runner-$name.log")")
    done
    ;;
  bench)
    for batch in 100 1024; do
      timeout 300 $PY benchmarks/throughput.py --device gpu:0 --batch "$batch" \
        --steps "${BENCH_STEPS:-20}" --repeats "${BENCH_REPEATS:-5}" >"$LOGS/bench-$batch.log" 2>&1
      summary+=("bench batch $batch:" "$(grep -E '^(train|infer|last)' "$LOGS/bench-$batch.log" \
        || tail -n 5 "$LOGS/bench-$batch.log")")
    done
    ;;
  dist)  # two ranks sharing gpu:0: gradients over MPI through host memory
    timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 $PY -m runner device=gpu:0 \
      trainer.distributed=true tracking.enabled=false trainer.epochs=1 trainer.progress=false \
      "hydra.run.dir=$LOGS/run-dist" >"$LOGS/dist.log" 2>&1
    summary+=("dist 2 ranks on gpu:0: $(grep -E 'data parallel|test loss|valid/acc|failed' \
      "$LOGS/dist.log" | tr '\n' ' ')")
    ;;
  *) echo "unknown step $step (use tests, runner, bench or dist)"; exit 2 ;;
  esac
done
printf '%s\n' "${summary[@]}"
